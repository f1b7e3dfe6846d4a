// Observation records (SPEC §7), one JSON object per line, with the fields in the order
// examples/internal/record writes them, and the fixtures the lanes serve.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

/** fixtures lists dir/<suite>/<id>.json sorted by id: {id, path, bytes, sha256}. */
export function fixtures(dir) {
  const out = [];
  for (const suite of readdirSync(dir).sort()) {
    const sdir = join(dir, suite);
    if (!statSync(sdir).isDirectory()) continue;
    for (const name of readdirSync(sdir)) {
      if (!name.endsWith('.json')) continue;
      const path = join(sdir, name);
      const bytes = readFileSync(path);
      out.push({ id: basename(name, '.json'), path, bytes, sha256: createHash('sha256').update(bytes).digest('hex') });
    }
  }
  out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (out.length === 0) throw new Error(`no fixtures under ${dir}`);
  return out;
}

// marshal writes JSON as Go's encoding/json does for the same value: <, >, &, U+2028 and U+2029
// escaped (they occur only inside strings, so the replacement cannot touch the structure).
export function marshal(value) {
  const s = JSON.stringify(value);
  if (s === undefined) throw new Error('not a JSON value');
  return s.replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

/** Writer writes the records of one lane, version, configuration and repetition. */
export class Writer {
  constructor({ out = process.stdout, lane, laneVersion, configuration, repetition }) {
    Object.assign(this, { out, lane, laneVersion, configuration, repetition });
  }

  write(f, stage, state, { carrier, error } = {}) {
    const rec = {
      fixture: f.id,
      lane: this.lane,
      laneVersion: this.laneVersion,
      configuration: this.configuration,
      stage,
      repetition: this.repetition,
      state,
    };
    if (carrier !== undefined) rec.carrier = carrier;
    if (error !== undefined && error !== '') rec.error = error;
    rec.sourceSha256 = f.sha256;
    rec.origin = 'captured';
    this.out.write(marshal(rec) + '\n');
  }

  /** captured writes a carrier: a JSON-compatible value as the framework holds it. */
  captured(f, stage, carrier) {
    if (carrier === undefined) throw new Error(`record ${f.id} ${stage}: no carrier`);
    this.write(f, stage, 'captured', { carrier });
  }

  failed(f, stage, err) {
    const msg = err instanceof Error ? err.message : String(err ?? '');
    this.write(f, stage, 'execution_failed', { error: msg || 'execution failed' });
  }

  notReached(f, stage) {
    this.write(f, stage, 'not_reached');
  }

  notApplicable(f, stage) {
    this.write(f, stage, 'not_applicable');
  }

  notObservable(f, stage) {
    this.write(f, stage, 'not_observable');
  }

  /**
   * stages writes the observed stages in order: a carrier is captured; the first stage without
   * one is execution_failed (with its reason and the run's error), and every later stage
   * not_reached. No retries.
   */
  stages(f, list, runError) {
    let failed = false;
    for (const { stage, carrier, missing } of list) {
      if (failed) this.notReached(f, stage);
      else if (carrier !== undefined) this.captured(f, stage, carrier);
      else {
        failed = true;
        let msg = missing;
        if (runError) msg += ': ' + (runError instanceof Error ? runError.message : String(runError));
        this.failed(f, stage, msg);
      }
    }
  }
}

/** plain turns a framework value into the JSON value it serializes to (undefined members dropped). */
export function plain(value) {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}
