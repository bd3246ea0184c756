/*
 * Inputs within kgrag's own limits that used to kill or freeze it (issue 35, items 3 and 4), measured:
 * - `upload_49mb_peak_rss_mb`: `kgrag index` (fast mode, every method) of a 49 MB file of random base64 text in
 *   100-character lines — under the server's 50 MB upload limit — in a fresh process: its peak RSS (target
 *   < 2,000 MB) and `upload_49mb_index_ok` (1 when it completed). Before issue 35 it died of heap exhaustion at 5.3 GB.
 * - `docx_250mb_unpacked_health_max_ms`: the longest `/health` answer of a real `kgrag serve` (probed every 50 ms)
 *   from the upload of a 0.7 MB .docx whose XML unpacks to 250 MB until its job has ended, and how that job ended.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRandom } from '../src/core/random.js';
import { zipArchive } from '../test/fixtures/text/minimal-docx.js';
import { type BenchResult, result, runChild, startServe } from './bench-utils.js';

const randomTextBytes = 49 * 1024 * 1024;

/** 49 MB of seeded random base64 text in lines of 100 characters: no word repeats. */
function randomBase64Text(seed: number): string {
  const random = createRandom(seed);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const lines: string[] = [];
  for (let length = 0; length < randomTextBytes; length += 101) {
    let line = '';
    for (let index = 0; index < 100; index++) line += alphabet[Math.floor(random() * 64)];
    lines.push(line);
  }
  return `${lines.join('\n')}\n`;
}

export async function measureRandomUpload(runs: number): Promise<Record<string, BenchResult>> {
  const folder = mkdtempSync(join(tmpdir(), 'kgrag-bench-random-'));
  const peaks: number[] = [];
  const ok: number[] = [];
  const seconds: number[] = [];
  try {
    const file = join(folder, 'random.txt');
    writeFileSync(file, randomBase64Text(49));
    for (let run = 0; run < runs; run++) {
      const workspace = join(folder, `workspace-${run}`);
      try {
        const report = runChild<{ code: number; seconds: number; maxRssMb: number; summary: { chunks: number } | null }>('./cli-index-child.ts', [file, '-w', workspace]);
        peaks.push(report.maxRssMb);
        ok.push(report.code === 0 ? 1 : 0);
        seconds.push(report.seconds);
        process.stderr.write(`    run ${run + 1}/${runs}: exit ${report.code}, ${report.summary?.chunks ?? '?'} chunks, ${report.seconds.toFixed(0)} s, peak RSS ${report.maxRssMb.toFixed(0)} MB\n`);
      } catch (error) {
        ok.push(0);
        process.stderr.write(`    run ${run + 1}/${runs} failed: ${String(error).slice(-2000)}\n`);
      }
      rmSync(workspace, { recursive: true, force: true });
    }
    return { upload_49mb_peak_rss_mb: result(peaks, 'MB'), upload_49mb_index_ok: result(ok, 'count'), upload_49mb_index_s: result(seconds, 's') };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** A .docx whose word/document.xml is `megabytes` MB of one paragraph repeated. */
function unpackingDocx(megabytes: number): Uint8Array {
  const paragraph = '<w:p><w:r><w:t>The weir was rebuilt in 1952 by the harbour board, and again in 1978 after the flood.</w:t></w:r></w:p>';
  const head = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>';
  const tail = '<w:sectPr/></w:body></w:document>';
  const piece = Buffer.from(paragraph.repeat(Math.floor((1024 * 1024) / paragraph.length)));
  const pieces = Math.floor((megabytes * 1024 * 1024 - head.length - tail.length) / piece.length);
  const parts = [Buffer.from(head), ...Array.from({ length: pieces }, () => piece), Buffer.from(tail)];
  return zipArchive([
    ['[Content_Types].xml', Buffer.from('<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>')],
    ['word/document.xml', Buffer.concat(parts)],
  ]);
}

export async function measureUnpackingDocx(runs: number): Promise<Record<string, BenchResult>> {
  const docx = unpackingDocx(250);
  process.stderr.write(`    the .docx is ${(docx.length / 1024).toFixed(0)} KB and unpacks to 250 MB\n`);
  const worst: number[] = [];
  const jobSeconds: number[] = [];
  for (let run = 0; run < runs; run++) {
    const workspace = mkdtempSync(join(tmpdir(), 'kgrag-bench-docx-'));
    const server = await startServe(workspace);
    try {
      let longest = 0;
      let probing = true;
      const probe = (async () => {
        while (probing) {
          const started = performance.now();
          await fetch(`${server.url}/health`);
          longest = Math.max(longest, performance.now() - started);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();
      const started = performance.now();
      const form = new FormData();
      form.append('file', new Blob([Buffer.from(docx)]), 'report.docx');
      const added = await fetch(`${server.url}/v1/documents`, { method: 'POST', body: form });
      const { job } = (await added.json()) as { job: { id: string } };
      const events = await (await fetch(`${server.url}/v1/jobs/${job.id}/events`)).text();
      const ended = JSON.parse(/event: end\ndata: (.*)\n/.exec(events)?.[1] ?? '{}') as { status?: string; warnings?: string[]; error?: { message: string } | null };
      jobSeconds.push((performance.now() - started) / 1000);
      probing = false;
      await probe;
      worst.push(longest);
      process.stderr.write(`    run ${run + 1}/${runs}: /health at most ${longest.toFixed(1)} ms; the job ${ended.status} in ${jobSeconds.at(-1)?.toFixed(1)} s: ${ended.error?.message ?? ended.warnings?.join(' | ') ?? ''}\n`);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      rmSync(workspace, { recursive: true, force: true });
    }
  }
  return { docx_250mb_unpacked_health_max_ms: result(worst, 'ms'), docx_250mb_unpacked_job_s: result(jobSeconds, 's') };
}
