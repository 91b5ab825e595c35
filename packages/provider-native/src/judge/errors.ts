import { JUDGE_ENV_HINT } from './config.js';

/** No judge model configured: LLM-judged metrics cannot run. */
export class JudgeNotConfiguredError extends Error {
  constructor(metric?: string) {
    super(`${metric ? `${metric}: ` : ''}no LLM judge configured: ${JUDGE_ENV_HINT}`);
    this.name = 'JudgeNotConfiguredError';
  }
}

/** The judge replied, but not with a usable `Score: N` (1–5). The computation fails; nothing is stored. */
export class JudgeReplyError extends Error {
  constructor(
    message: string,
    readonly reply: string,
  ) {
    super(message);
    this.name = 'JudgeReplyError';
  }
}

/** A metric's input is missing (empty conversation, tool call without output): it fails rather than scoring 0. */
export class MissingJudgeInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MissingJudgeInputError';
  }
}
