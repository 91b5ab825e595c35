/** `mce ingest FILE…`, `mce sessions list`, `mce sessions export`, `mce sessions delete`. */
import type { Command } from 'commander';
import { SessionNotFoundError } from '@mce/core';
import { TRACE_FORMATS, writeSessionsFile } from '@mce/ingest';
import { checkFormat, fileReporter, inputFiles, readInputSessions, skippedOutcome, warningReporter } from './inputs.js';
import { formatValue, isoTime, printable, table } from '../format.js';
import { createProgress } from '../progress.js';
import { UsageError, logger, openClient, timeOption, writeJson, type CliIO } from '../context.js';

function positiveInt(value: string, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${name} must be a non-negative integer (got "${value}")`);
  return n;
}

export function registerIngestCommands(program: Command, io: CliIO): void {
  program
    .command('ingest <files...>')
    .description('read trace files (OTLP/JSON and JSON Lines, ClickHouse rows, session JSON, Jaeger, Zipkin, Langfuse, Phoenix, OTel console output, any-agent) into the store; exit 3 when an unreadable file was skipped')
    .option('--format <format>', `force the input format (${TRACE_FORMATS.join(', ')})`)
    .option('--strict', 'an unreadable file ends the run (exit 2) instead of being skipped (exit 3)')
    .option('--json', 'JSON output')
    .action(async (paths: string[], opts: { format?: string; json?: boolean; strict?: boolean }, cmd: Command) => {
      const format = checkFormat(opts.format);
      const files = await inputFiles(paths);
      const log = logger(cmd, io);
      await using client = await openClient(cmd, io);
      // Several files are each said as they are read (fileReporter): those lines are the progress, not a bar.
      const progress = createProgress(io.stderr as NodeJS.WriteStream, !opts.json && files.length <= 1);
      progress.start(files.length, 'files');
      let summary;
      try {
        // All files in one call: a session split across files is grouped whole.
        const reportFile = fileReporter(io, log, opts.json, files);
        summary = await client.ingest(files, {
          ...(format ? { format } : {}),
          skipUnreadable: !opts.strict,
          onFileDone: reportFile,
          onFile: (file, index) => {
            if (index > 0) progress.increment();
            log.info({ file }, 'reading');
          },
        });
        progress.increment();
      } finally {
        progress.stop();
      }
      const report = warningReporter(io, log, opts.json);
      for (const w of summary.warnings) report(w);
      const skipped = summary.skipped;
      // Not one file could be read: bad input (exit 2), as a single bad file always was.
      if (skipped.length === files.length && skipped.length > 0) throw skipped[0]!.error;
      const partial = skippedOutcome(skipped, files.length);
      if (opts.json) {
        writeJson(io, { sessionIds: summary.sessionIds, calls: summary.calls, warnings: summary.warnings.length, skipped: skipped.map((s) => ({ file: s.file, reason: s.error.message })) });
      } else {
        for (const id of summary.sessionIds) io.stdout.write(`${printable(id)}\n`);
        io.stderr.write(`ingested ${summary.sessionIds.length} session(s), ${summary.calls} call(s) from ${files.length - skipped.length} file(s)` +
          `${skipped.length ? `, ${skipped.length} file(s) skipped (above)` : ''}` +
          `${summary.warnings.length ? `, ${summary.warnings.length} warning(s) (above)` : ''}\n`);
      }
      if (partial) throw partial;
    });

  const sessions = program.command('sessions').description('stored sessions');
  sessions
    .command('list')
    .description('stored sessions, newest first')
    .option('--from <time>', 'sessions starting at or after this time (ISO or epoch ms)')
    .option('--to <time>', 'sessions starting at or before this time')
    .option('--service <name>', 'service name')
    .option('--app <name>', 'app name')
    .option('--limit <n>', 'page size', '100')
    .option('--offset <n>', 'page offset', '0')
    .option('--json', 'JSON output')
    .action(async (opts: { from?: string; to?: string; service?: string; app?: string; limit: string; offset: string; json?: boolean }, cmd: Command) => {
      const filter = {
        ...(opts.from ? { from: timeOption(opts.from, '--from') } : {}),
        ...(opts.to ? { to: timeOption(opts.to, '--to') } : {}),
        ...(opts.service ? { serviceName: opts.service } : {}),
        ...(opts.app ? { appName: opts.app } : {}),
        limit: positiveInt(opts.limit, '--limit'),
        offset: positiveInt(opts.offset, '--offset'),
      };
      await using client = await openClient(cmd, io, undefined, true);
      const list = await client.store.listSessions(filter);
      if (opts.json) return writeJson(io, list);
      const rows = list.map((s) => [
        s.id,
        isoTime(s.startTime),
        `${formatValue(s.endTime - s.startTime)} ms`,
        s.serviceName ?? '',
        String(s.counts.agentCalls),
        String(s.counts.llmCalls),
        String(s.counts.toolCalls),
      ]);
      io.stdout.write(`${table(['Session', 'Start', 'Duration', 'Service', 'Agents', 'LLM calls', 'Tool calls'], rows)}\n`);
    });

  sessions
    .command('delete <session_id...>')
    .description('remove stored sessions with their calls, MCP servers and results (exit code 2 when none of them is stored)')
    .option('--json', 'JSON output: {"deleted": [ids], "notFound": [ids]}')
    .action(async (ids: string[], opts: { json?: boolean }, cmd: Command) => {
      await using client = await openClient(cmd, io, undefined, true);
      const deleted = await client.deleteSessions(ids);
      const gone = new Set(deleted);
      const notFound = [...new Set(ids)].filter((id) => !gone.has(id));
      // Nothing to delete is most likely a misspelt id: said, as `kg metric get` says it, rather than done silently.
      if (deleted.length === 0) throw new SessionNotFoundError(notFound);
      if (opts.json) return writeJson(io, { deleted, notFound });
      for (const id of deleted) io.stdout.write(`${printable(id)}\n`);
      const missing = notFound.length > 0 ? `; not stored: ${notFound.map(printable).join(', ')}` : '';
      io.stderr.write(`deleted ${deleted.length} session(s)${missing}\n`);
    });

  sessions
    .command('export')
    .description("write sessions read from trace files as mce session JSON (re-imports to the same sessions)")
    .requiredOption('--input <files...>', 'trace or session files')
    .requiredOption('-o, --output <file>', 'the session JSON file to write')
    .option('--format <format>', `force the input format (${TRACE_FORMATS.join(', ')})`)
    .option('--strict', 'an unreadable file ends the run (exit 2) instead of being skipped (exit 3)')
    .action(async (opts: { input: string[]; output: string; format?: string; strict?: boolean }, cmd: Command) => {
      const format = checkFormat(opts.format);
      const files = await inputFiles(opts.input);
      const log = logger(cmd, io);
      const read = await readInputSessions(files, { format, strict: Boolean(opts.strict) }, warningReporter(io, log, false), fileReporter(io, log, false, files));
      const partial = skippedOutcome(read.skipped, read.files);
      if (read.skipped.length === read.files) throw partial;
      const n = await writeSessionsFile(opts.output, read.sessions);
      io.stderr.write(`wrote ${n} session(s) to ${opts.output}\n`);
      if (partial) throw partial;
    });
}
