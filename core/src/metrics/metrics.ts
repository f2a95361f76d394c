// The process's Prometheus metrics (prom-client): one Registry per Quad instance (never prom-client's global one: a
// test process starts many apps), with the counters and latency histograms of HTTP requests, job runs and tool
// calls, and the uses of the cross-org path. The core's parts record here; GET /metrics (routes.ts) and the METRICS_PORT listener (listener.ts) serve it.
// Labels are few and bounded: a route's pattern (never its URL), a method, a status code, a job or tool name and an
// outcome, a cross-org reason written in code — never an org, a user or anything a caller chose freely.
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Every metric's name starts with it, the process metrics' too (`quad_process_cpu_seconds_total`, …). */
export const METRIC_PREFIX = 'quad_';

/** The `route` label of a request no route matched (a 404 of the router): one value, whatever the path was. */
export const UNMATCHED_ROUTE = 'unmatched';

/** How a job run ended: as its job_runs row says, `retrying` being a failed attempt that will be retried. */
export type JobOutcome = 'succeeded' | 'skipped' | 'retrying' | 'failed';

/**
 * How a tool call ended: `ok`; `confirm_required` (answered with a preview); `tool_error` (a remote tool answered
 * an error result); `refused` (a 4xx: unknown or not allowed, bad input, …); `rate_limited` (429,
 * mcp.calls_per_minute); `unavailable` (503: the database or an outside service); `error` (a bug, 500).
 */
export type ToolCallOutcome = 'ok' | 'confirm_required' | 'tool_error' | 'refused' | 'rate_limited' | 'unavailable' | 'error';

/** The `tool` label of a call naming no tool the caller could be served: one value, whatever the name was. */
export const UNKNOWN_TOOL = 'unknown';

// Requests and tool calls: from a cached read (milliseconds) to a remote tool's deadline (REMOTE_MCP_TIMEOUT_MS,
// 15 s by default). Jobs: from a trivial run to a long crawl.
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const TOOL_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900];

export class Metrics {
  readonly registry = new Registry();
  private processMetrics = false;

  private readonly requests = new Counter({
    name: 'quad_http_requests_total', help: 'HTTP requests answered by the API, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const, registers: [this.registry],
  });
  private readonly requestSeconds = new Histogram({
    name: 'quad_http_request_duration_seconds', help: 'Time from a request\'s arrival to its answer, by method and route pattern',
    labelNames: ['method', 'route'] as const, buckets: REQUEST_BUCKETS, registers: [this.registry],
  });
  private readonly jobs = new Counter({
    name: 'quad_jobs_total', help: 'Job runs (attempts) finished by this process, by job and outcome',
    labelNames: ['job', 'outcome'] as const, registers: [this.registry],
  });
  private readonly jobSeconds = new Histogram({
    name: 'quad_job_duration_seconds', help: 'Time a job run (one attempt) took, its bookkeeping included, by job',
    labelNames: ['job'] as const, buckets: JOB_BUCKETS, registers: [this.registry],
  });
  private readonly toolCalls = new Counter({
    name: 'quad_tool_calls_total', help: 'Tool calls (MCP and /api/tools) answered by this process, by tool and outcome',
    labelNames: ['tool', 'outcome'] as const, registers: [this.registry],
  });
  private readonly toolSeconds = new Histogram({
    name: 'quad_tool_call_duration_seconds', help: 'Time a tool call took, its checks, rate count and audit included, by tool',
    labelNames: ['tool'] as const, buckets: TOOL_BUCKETS, registers: [this.registry],
  });
  private readonly crossOrg = new Counter({
    name: 'quad_across_orgs_total', help: 'Uses of the cross-org path (services.acrossOrgs) by this process, by reason',
    labelNames: ['reason'] as const, registers: [this.registry],
  });

  /**
   * Add prom-client's process metrics (CPU, memory, heap, event-loop lag, GC, handles), prefixed `quad_`. Only for a
   * process whose metrics can be scraped (METRICS_TOKEN set): they start an event-loop sampler and a GC observer
   * that cannot be stopped again, which a process that never exposes them (or a test starting many apps) should not
   * pay for. Once per instance.
   */
  collectProcessMetrics() {
    if (this.processMetrics) return;
    this.processMetrics = true;
    collectDefaultMetrics({ register: this.registry, prefix: METRIC_PREFIX });
  }

  /**
   * Fastify's onResponse hook (a callback hook: no promise per request). The route label is the route's pattern,
   * `unmatched` for the router's 404s; the time is Fastify's own, from the request's arrival to the response's end.
   */
  readonly onResponse = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const method = request.method;
    this.requests.inc({ method, route, status: reply.statusCode });
    this.requestSeconds.observe({ method, route }, reply.elapsedTime / 1000);
    done();
  };

  jobFinished(job: string, outcome: JobOutcome, seconds: number) {
    this.jobs.inc({ job, outcome });
    this.jobSeconds.observe({ job }, seconds);
  }

  toolCalled(tool: string, outcome: ToolCallOutcome, seconds: number) {
    this.toolCalls.inc({ tool, outcome });
    this.toolSeconds.observe({ tool }, seconds);
  }

  /** A use of the cross-org path; its reason is `<module>.<what>`, written in code. */
  acrossOrgs(reason: string) {
    this.crossOrg.inc({ reason });
  }

  /** The Prometheus text exposition of everything recorded, and its content type. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
