/** The process's judge for the built-in LLM-judged metrics: from the environment at first use, or set explicitly. */
import { judgeConfigFromEnv } from '../../judge/config.js';
import { Judge } from '../../judge/judge.js';

let shared: Judge | undefined;

/** The default judge, built from `process.env` at first use (after the CLI has loaded its env file). */
export function defaultJudge(): Judge {
  shared ??= new Judge(judgeConfigFromEnv(process.env));
  return shared;
}

/** Replaces the default judge (a client with its own configuration; undefined → rebuilt from the environment). */
export function setDefaultJudge(judge: Judge | undefined): void {
  shared = judge;
}
