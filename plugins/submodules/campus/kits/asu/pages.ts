// The public ASU pages the deployment crawls once for all subscribers (the knowledge module's shared pages): a choice
// from the seed system's list (asusoda/platform, packs/asu/sources/pages.py), one page per topic students ask about.
// Pages that change weekly are fetched every 72 hours, the rest weekly.
import type { PageDecl } from 'quad-submodule-kit';

const page = (key: string, url: string, title: string, category: string, fetch_every_hours = 168): PageDecl =>
  ({ key: `campus/${key}`, url, title, category, fetch_every_hours });

export const pages: PageDecl[] = [
  page('academic-calendar', '{registrar}/academic-calendar', 'ASU academic calendar', 'calendar', 72),
  page('final-exam-schedule', '{registrar}/final-exam-schedule', 'Final exam schedule', 'calendar', 72),
  page('drop-add', '{registrar}/drop-add', 'Drop/add and schedule changes', 'registrar'),
  page('transcripts', '{registrar}/transcripts', 'Transcripts', 'registrar'),
  page('payment-deadlines', '{tuition}/billing-finances/deadlines', 'Tuition payment deadlines', 'tuition', 72),
  page('tuition-fees', '{tuition}/cost/tuition-fees', 'Tuition and fees', 'tuition'),
  page('fafsa', '{tuition}/financial-aid/fafsa', 'FAFSA and financial aid', 'financial_aid'),
  page('housing-faqs', '{housing}/faqs', 'University Housing FAQs', 'housing'),
  page('first-year-housing', '{housing}/first-year-housing', 'First-year housing', 'housing'),
  page('health', '{eoss}/health', 'ASU Health Services', 'health'),
  page('counseling', '{eoss}/counseling', 'ASU Counseling Services', 'counseling'),
  page('student-unions', '{eoss}/student-unions', 'Student unions', 'campus'),
  page('accessibility', '{eoss}/accessibility', 'Student Accessibility and Inclusive Learning Services', 'accessibility'),
  page('parking-permits', '{cfo}/permits', 'Parking permits', 'parking'),
  page('transit-passes', '{cfo}/transit-passes', 'Transit passes (U-Pass)', 'transit'),
  page('police', '{cfo}/police', 'ASU Police', 'safety'),
  page('eduroam', '{tech}/services/campus-it-resources/wifi/eduroam', 'Wi-Fi: eduroam', 'it'),
  page('campus-tempe', '{campus}/tempe', 'Tempe campus', 'campus'),
  page('campus-downtown-phoenix', '{campus}/downtown-phoenix', 'Downtown Phoenix campus', 'campus'),
  page('campus-polytechnic', '{campus}/polytechnic-campus', 'Polytechnic campus', 'campus'),
  page('campus-west-valley', '{campus}/west-valley', 'West Valley campus', 'campus'),
  page('international-status', '{issc}/f-1j-1-students/maintaining-status', 'F-1/J-1 students: maintaining status', 'international', 72),
  page('career-fairs', '{career}/channels/career-internship-fairs/', 'Career and internship fairs', 'career', 72),
  page('advising', '{students}/advising', 'Academic advising', 'advising'),
  page('library-facilities', '{library}/policies/facilities-use', 'ASU Library facilities use', 'library'),
  page('meal-plan-faq', '{dining}/meal-plans/meal-plan-faq', 'Meal plan FAQ', 'dining'),
  page('facts-and-figures', '{www}/about/facts-and-figures', 'ASU facts and figures', 'about'),
  page('rankings', '{www}/about/rankings', 'ASU rankings', 'about'),
];
