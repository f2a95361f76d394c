// GitHub's MCP server as the fake remote MCP server lists it (startFakeRemoteMcp, then `fake.tools = githubMcpTools()`),
// for the tests of the `repos` limit. Each input schema is the one github/github-mcp-server lists, copied from its
// tool snapshots (pkg/github/__toolsnaps__/<name>.snap at commit 64a49f34d076b6f5917dae1424521d43c7bcae84) with the
// descriptions of the properties left out: types, enums, bounds and `required` as GitHub's server declares them.
// Each tool answers with its name and the arguments it received, so a test sees what was forwarded. Test code, not
// production code.
import type { FakeRemoteTool } from '../remote-mcp.js';

const echo = (name: string) => (args: Record<string, unknown>) => ({ content: [{ type: 'text' as const, text: `${name} ${JSON.stringify(args)}` }] });
const page = { page: { minimum: 1, type: 'number' }, perPage: { maximum: 100, minimum: 1, type: 'number' } };
const order = { order: { enum: ['asc', 'desc'], type: 'string' } };

/** The input schemas of GitHub's tools, by name (see the header for their source). */
export const GITHUB_INPUT_SCHEMAS = {
  get_file_contents: {
    properties: {
      fields: { items: { enum: ['type', 'name', 'path', 'size', 'sha', 'url', 'git_url', 'html_url', 'download_url'], type: 'string' }, type: 'array' },
      owner: { type: 'string' }, path: { default: '/', type: 'string' }, ref: { type: 'string' }, repo: { type: 'string' }, sha: { type: 'string' },
    },
    required: ['owner', 'repo'], type: 'object',
  },
  search_code: {
    properties: {
      fields: { items: { enum: ['name', 'path', 'sha', 'repository', 'text_matches'], type: 'string' }, type: 'array' },
      ...order, ...page, query: { type: 'string' }, sort: { type: 'string' },
    },
    required: ['query'], type: 'object',
  },
  search_repositories: {
    properties: {
      minimal_output: { default: true, type: 'boolean' }, ...order, ...page, query: { type: 'string' },
      sort: { enum: ['stars', 'forks', 'help-wanted-issues', 'updated'], type: 'string' },
    },
    required: ['query'], type: 'object',
  },
  search_issues: {
    properties: {
      fields: {
        items: {
          enum: ['number', 'title', 'body', 'state', 'state_reason', 'draft', 'locked', 'html_url', 'user', 'author_association', 'labels', 'assignee', 'assignees',
            'milestone', 'comments', 'reactions', 'created_at', 'updated_at', 'closed_at', 'closed_by', 'type', 'repository_url', 'pull_request', 'field_values'],
          type: 'string',
        },
        type: 'array',
      },
      ...order, owner: { type: 'string' }, ...page, query: { type: 'string' }, repo: { type: 'string' },
      sort: { enum: ['comments', 'reactions', 'reactions-+1', 'reactions--1', 'reactions-smile', 'reactions-thinking_face', 'reactions-heart', 'reactions-tada', 'interactions', 'created', 'updated'], type: 'string' },
    },
    required: ['query'], type: 'object',
  },
  list_issues: {
    properties: {
      after: { type: 'string' }, direction: { enum: ['ASC', 'DESC'], type: 'string' },
      field_filters: { items: { properties: { field_name: { type: 'string' }, value: { type: 'string' } }, required: ['field_name', 'value'], type: 'object' }, type: 'array' },
      fields: { items: { enum: ['number', 'title', 'body', 'state', 'user', 'labels', 'assignees', 'comments', 'created_at', 'updated_at', 'field_values'], type: 'string' }, type: 'array' },
      labels: { items: { type: 'string' }, type: 'array' }, orderBy: { enum: ['CREATED_AT', 'UPDATED_AT', 'COMMENTS'], type: 'string' },
      owner: { type: 'string' }, perPage: page.perPage, repo: { type: 'string' }, since: { type: 'string' }, state: { enum: ['OPEN', 'CLOSED'], type: 'string' },
    },
    required: ['owner', 'repo'], type: 'object',
  },
  create_issue: {
    properties: { body: { type: 'string' }, owner: { type: 'string' }, repo: { type: 'string' }, title: { type: 'string' } },
    required: ['owner', 'repo', 'title'], type: 'object',
  },
  get_me: { properties: {}, type: 'object' },
} as const;

const TITLES: Record<keyof typeof GITHUB_INPUT_SCHEMAS, string> = {
  get_file_contents: 'Get file or directory contents', search_code: 'Search code', search_repositories: 'Search repositories',
  search_issues: 'Search issues', list_issues: 'List issues', create_issue: 'Create Issue', get_me: 'Get my user profile',
};

/** get_file_contents, search_code, search_repositories, search_issues, list_issues, create_issue and get_me. */
export function githubMcpTools(): FakeRemoteTool[] {
  return Object.entries(GITHUB_INPUT_SCHEMAS).map(([name, inputSchema]) => ({
    listing: {
      name, title: TITLES[name as keyof typeof GITHUB_INPUT_SCHEMAS], inputSchema: structuredClone(inputSchema) as never,
      annotations: { readOnlyHint: name !== 'create_issue' },
    },
    run: echo(name),
  }));
}
