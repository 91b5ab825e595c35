/**
 * `mce check --junit FILE`: JUnit XML as CI systems read it (the Ant/JUnit schema most of them follow): one
 * `<testsuite>` per session, one `<testcase>` per threshold; a threshold not held is a `<failure>`, a failed
 * computation an `<error>`, a level with nothing to check `<skipped/>`.
 */
import { hostname } from 'node:os';
import { esc } from '../report/escape.js';
import { bounds, totals, type CheckCase } from './evaluate.js';

/** XML 1.0 has no place for most control characters, even escaped: they become U+FFFD. */
// eslint-disable-next-line no-control-regex
const xmlText = (text: string) => esc(text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '\ufffd'));

/** The schema's timestamp: ISO 8601 without a zone or fraction (UTC). */
const timestamp = (date: Date) => date.toISOString().slice(0, 19);

export function junitXml(cases: readonly CheckCase[], at: Date = new Date(), host: string = hostname() || 'localhost'): string {
  const bySession = new Map<string, CheckCase[]>();
  for (const c of cases) bySession.set(c.sessionId, [...(bySession.get(c.sessionId) ?? []), c]);
  const suites = [...bySession.entries()].map(([sessionId, list], id) => {
    const t = totals(list);
    return `  <testsuite name="${xmlText(sessionId)}" package="mce.check" id="${id}" timestamp="${timestamp(at)}" hostname="${xmlText(host)}" tests="${t.checked}" failures="${t.failed}" errors="${t.errors}" skipped="${t.skipped}" time="0">
    <properties>
      <property name="session" value="${xmlText(sessionId)}"/>
    </properties>
${list.map(testcase).join('\n')}
    <system-out></system-out>
    <system-err></system-err>
  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n${suites.join('\n')}\n</testsuites>\n`;
}

function testcase(c: CheckCase): string {
  const t = c.threshold;
  const open = `    <testcase name="${xmlText(`${t.level} ${t.metric} ${t.per} ${bounds(t)}`)}" classname="${xmlText(`mce.check.${t.level}.${t.metric}`)}" time="0"`;
  if (c.status === 'pass') return `${open}/>`;
  if (c.status === 'skipped') return `${open}>\n      <skipped/>\n    </testcase>`;
  const element = c.status === 'fail' ? 'failure' : 'error';
  const type = c.status === 'fail' ? 'threshold' : 'computation';
  const body = c.failing.map((f) => `${f.measures}: ${f.value}`).join('\n');
  return `${open}>\n      <${element} message="${xmlText(c.message)}" type="${type}">${xmlText(body)}</${element}>\n    </testcase>`;
}
