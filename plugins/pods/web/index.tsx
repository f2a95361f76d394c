// The pods module's dashboard page, built into web/dist/index.js and loaded by the dashboard at run time. React,
// @tanstack/react-query and @quad/web/sdk are the dashboard's own (its import map). PodsPage is the officers' page
// at /dashboard/pods (pods-page.tsx), with one pod at /dashboard/pods/<pod_id> (pod-detail.tsx).
export { PodsPage } from './pods-page.js';
