// The one error configuration loading throws: it carries every problem found in a file at once,
// each with a stable code and the JSON Pointer of the offending value, so a person fixes the file
// in one pass and a test or tool can branch on codes. Owns the error shape and its message text;
// never reads files or validates.

/** Why loading failed as a whole. */
export type ConfigErrorCode =
  | 'CONFIG_UNREADABLE' // the file could not be read
  | 'CONFIG_NOT_JSON' // the text is not valid JSON
  | 'CONFIG_INVALID'; // JSON, but with one or more issues below

/** What is wrong at one place in the file. */
export type ConfigIssueCode =
  | 'SCHEMA_VIOLATION' // wrong type, out of range, not an allowed value, bad format
  | 'MISSING_KEY' // a required key is absent
  | 'UNKNOWN_KEY' // a key the schema does not define
  | 'RENAMED_KEY' // a key that was renamed: the message names the replacement
  | 'REMOVED_KEY' // a key that no longer exists: the message says what to do instead
  | 'DUPLICATE_VALUE' // e.g. two strategies with the same id
  | 'INCONSISTENT_VALUES' // keys valid alone but not together (min > max, remote without URL)
  | 'SECRET_IN_CONFIG' // a private key or token written into the file
  | 'SECRET_MISSING' // a required environment variable (or the file it names) is absent
  | 'SECRET_INVALID'; // the environment names something that is not a usable secret

export interface ConfigIssue {
  readonly code: ConfigIssueCode;
  /** JSON Pointer into the file ("/risk/maxOrderCount"); "/" for the whole document. */
  readonly path: string;
  /** What was expected or what to do, without the file and path prefix. */
  readonly message: string;
}

export const CONFIG_ISSUE_CODES: readonly ConfigIssueCode[] = [
  'SCHEMA_VIOLATION', 'MISSING_KEY', 'UNKNOWN_KEY', 'RENAMED_KEY', 'REMOVED_KEY', 'DUPLICATE_VALUE',
  'INCONSISTENT_VALUES', 'SECRET_IN_CONFIG', 'SECRET_MISSING', 'SECRET_INVALID',
];

export class ConfigError extends Error {
  readonly code: ConfigErrorCode;
  /** The file as named by the caller (or a label such as "<inline>"). */
  readonly file: string;
  /** Every issue found, sorted by path; empty for CONFIG_UNREADABLE and CONFIG_NOT_JSON. */
  readonly issues: readonly ConfigIssue[];

  constructor(code: ConfigErrorCode, file: string, issues: readonly ConfigIssue[], detail?: string) {
    super(formatMessage(code, file, issues, detail));
    this.name = 'ConfigError';
    this.code = code;
    this.file = file;
    this.issues = issues;
  }
}

/**
 * One line per issue, each "file: /json/path: expectation", so every line can be grepped or
 * pasted into an editor's go-to on its own:
 *   config/runtime.json: 2 problems
 *   config/runtime.json: /risk/maxOrderCount: must be integer (got string "ten")
 */
function formatMessage(code: ConfigErrorCode, file: string, issues: readonly ConfigIssue[], detail?: string): string {
  if (code !== 'CONFIG_INVALID') return `${file}: ${detail ?? code}`;
  const header = `${file}: ${issues.length} problem${issues.length === 1 ? '' : 's'}`;
  return [header, ...issues.map((issue) => `${file}: ${issue.path}: ${issue.message}`)].join('\n');
}
