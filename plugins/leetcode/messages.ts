// The Discord message of a daily problem: one embed (title with the problem's number and title, its difficulty, the
// link and the topic tags) and no mentions. Discord's limits: title 256, field values 1024.
import type { DailyProblem } from './leetcode-api.js';

const COLORS: Record<string, number> = { Easy: 0x00b8a3, Medium: 0xffc01e, Hard: 0xff375f };
const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

export function dailyMessage(problem: DailyProblem) {
  return {
    embeds: [{
      title: cut(`${problem.questionId}. ${problem.title}`, 256),
      url: problem.link,
      description: `Today's LeetCode daily problem (${problem.date}). Solve it and an accepted submission is counted for you once your LeetCode username is linked.`,
      color: COLORS[problem.difficulty] ?? 0x808080,
      fields: [
        { name: 'Difficulty', value: problem.difficulty, inline: true },
        { name: 'Tags', value: cut(problem.tags.join(', ') || 'None', 1024), inline: true },
      ],
    }],
    allowed_mentions: { parse: [] as never[] },
  };
}
