/**
 * Where `mce report` writes its document, so that a failed write never leaves a half report that looks whole: a file
 * is written as a temporary file beside it and renamed over it once complete (a failure removes the temporary file
 * and leaves an earlier report as it was); stdout gets what was written until the failure (EPIPE when the reader
 * went away), and the command then ends with the error.
 */
import { once } from 'node:events';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import { writeAll, type ReportSink } from '../../report/spool.js';
import type { CliIO } from '../context.js';

export interface ReportOutput {
  write: ReportSink;
  /** The document is whole: the file takes its place. */
  commit(): Promise<void>;
  /** The document is not whole: nothing of it is left under the target's name. */
  abort(): Promise<void>;
}

/** `target` is a path, or `-` for stdout. The temporary file is created now: an unwritable place fails before any work. */
export async function openReportOutput(target: string, io: CliIO): Promise<ReportOutput> {
  return target === '-' ? stdoutOutput(io.stdout) : fileOutput(target);
}

async function fileOutput(target: string): Promise<ReportOutput> {
  const temporary = join(dirname(target), `.${basename(target)}.${randomUUID().slice(0, 8)}.tmp`);
  const file = await open(temporary, 'wx').catch((error: NodeJS.ErrnoException) => {
    // The temporary file's name is no name the user gave: the error names the target.
    throw new Error(`${target}: cannot write the report here (${error.code ?? error.message})`, { cause: error });
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await file.close();
  };
  return {
    write: async (chunk) => {
      await writeAll(file, typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    },
    commit: async () => {
      await close();
      await rename(temporary, target);
    },
    abort: async () => {
      await close().catch(() => undefined);
      await rm(temporary, { force: true });
    },
  };
}

function stdoutOutput(stdout: CliIO['stdout']): ReportOutput {
  // The process's stdout reports a closed pipe as an 'error' event, not from write(): kept, and thrown by the next write.
  const events = typeof (stdout as Partial<NodeJS.EventEmitter>).on === 'function' ? (stdout as unknown as NodeJS.EventEmitter) : undefined;
  let failure: Error | undefined;
  const onError = (error: Error) => (failure ??= error);
  events?.on('error', onError);
  const done = async () => {
    events?.off('error', onError);
  };
  // Pieces of the spool end anywhere, also inside a character: text with whole characters goes out.
  const decoder = new StringDecoder('utf8');
  return {
    write: async (bytes) => {
      if (failure) throw failure;
      const chunk = typeof bytes === 'string' ? bytes : decoder.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      // Waits for the reader when the pipe is full (once() rejects on an 'error' meanwhile): memory holds a piece.
      if (!stdout.write(chunk) && events) await once(events, 'drain');
      if (failure) throw failure;
    },
    commit: done,
    abort: done,
  };
}
