/**
 * A report written a session at a time (`mce report`): each session's section is rendered as soon as its report is
 * built and appended to a spool file, and only a small summary of it stays in memory (its id, place and size). The
 * document is written from the spool at the end: the page start and the session index (which need every session's
 * id), then the sections, then the page end. Memory holds one section, not the report: a 2,000-session report was a
 * 298 MB string.
 *
 * A session added again (its later part came in a later chunk of the input, and it was computed again over the merged
 * session) keeps its first place and anchor and shows its last section; the earlier one stays unread in the spool.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { PAGE_END, SECTION_SEPARATOR, reportStart, sessionSection } from './html.js';
import type { SessionReport } from './model.js';

interface PlacedSection {
  /** 1-based place in the report (the anchor `session-N`). */
  place: number;
  offset: number;
  bytes: number;
  elementCount: number;
}

/** Where the document goes: a write that resolves once the chunk may be dropped (backpressure, errors). */
export type ReportSink = (chunk: string | Uint8Array) => Promise<void>;

/** Sections are copied from the spool in pieces of this size: a 10,000-span session's section is about 11 MB. */
const COPY_PIECE = 1 << 20;

export class SectionSpool implements AsyncDisposable {
  private readonly sections = new Map<string, PlacedSection>();
  private end = 0;

  private constructor(private readonly file: FileHandle) {}

  /** A spool file in `dir` (a temporary directory its owner removes). */
  static async create(dir: string): Promise<SectionSpool> {
    return new SectionSpool(await open(join(dir, 'report-sections.html'), 'w+'));
  }

  /** How many sessions the report holds, and their calls (a session added again counted once, as last added). */
  get sessionCount(): number {
    return this.sections.size;
  }

  get elementCount(): number {
    let n = 0;
    for (const s of this.sections.values()) n += s.elementCount;
    return n;
  }

  async add(report: SessionReport): Promise<void> {
    const id = report.session.id;
    const place = this.sections.get(id)?.place ?? this.sections.size + 1;
    const html = Buffer.from(sessionSection(report, `session-${place}`));
    await writeAll(this.file, html, this.end);
    // Map.set on a known id keeps its first place in iteration order: the session stays where it first came.
    this.sections.set(id, { place, offset: this.end, bytes: html.length, elementCount: report.elementCount });
    this.end += html.length;
  }

  /** The whole document into `sink`; returns its size in bytes. */
  async writeDocument(sink: ReportSink, generatedAt: Date = new Date()): Promise<number> {
    let bytes = 0;
    const write = async (chunk: string | Uint8Array) => {
      bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      await sink(chunk);
    };
    await write(reportStart([...this.sections.keys()], generatedAt));
    let first = true;
    for (const section of this.sections.values()) {
      if (!first) await write(SECTION_SEPARATOR);
      first = false;
      await this.copySection(section, write);
    }
    await write(PAGE_END);
    return bytes;
  }

  private async copySection(section: PlacedSection, write: ReportSink): Promise<void> {
    for (let done = 0; done < section.bytes; ) {
      // A new buffer each piece: the sink may still hold the previous one.
      const piece = Buffer.allocUnsafe(Math.min(COPY_PIECE, section.bytes - done));
      const { bytesRead } = await this.file.read(piece, 0, piece.length, section.offset + done);
      if (bytesRead === 0) throw new Error(`report spool ended early at byte ${section.offset + done}`);
      await write(bytesRead === piece.length ? piece : piece.subarray(0, bytesRead));
      done += bytesRead;
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.file.close();
  }
}

/** All of `bytes` at `position` (or the file's position): a write may take only part of them. */
export async function writeAll(file: FileHandle, bytes: Uint8Array, position: number | null = null): Promise<void> {
  for (let done = 0; done < bytes.length; ) {
    const { bytesWritten } = await file.write(bytes, done, bytes.length - done, position === null ? null : position + done);
    done += bytesWritten;
  }
}
