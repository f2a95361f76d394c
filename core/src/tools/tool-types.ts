// What a tool call answers and how a tool is listed: types only, shared by the tool service and remote tools (a
// file of types keeps the two from importing each other).

export type ToolOutcome =
  /** `remote`: `result` is the remote server's CallToolResult (`content`, `structuredContent?`, `isError?`), passed on as is. */
  | { ok: true; result: unknown; remote?: true }
  | { ok: true; confirm_required: true; preview: unknown }
  | { ok: false; status: number; error: string; reason?: string; details?: Record<string, unknown> };

/** How a tool is shown to a client (MCP tools/list and GET /api/tools). */
export interface ToolListing {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean };
  confirm: boolean;
}
