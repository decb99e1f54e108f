/** @module `support-chat-kit insights --org ORG [--since 7d] [--until WHEN] [--json]`: the insights report as tables (or JSON). */
import { parsePeriod, PeriodError } from '../../server/insights/period.js';
import { insightsReport, type InsightsReport } from '../../server/insights/report.js';
import { CliError, ORG_OPTION, parse } from '../args.js';
import { openDatabase } from '../database.js';

export async function run(argv: string[]): Promise<number> {
  const { values } = parse(
    argv,
    {
      org: ORG_OPTION,
      since: { type: 'string', value: '7d|ISO-8601', description: 'from (default: 7 days ago)' },
      until: { type: 'string', value: 'ISO-8601', description: 'to (default: now)' },
      json: { type: 'boolean', description: 'print the report as JSON' },
    },
    false,
  );
  const orgId = values.org!;
  let period: { since: Date; until: Date };
  try {
    period = parsePeriod({ since: values.since, until: values.until }, Date.now(), true);
  } catch (error) {
    if (error instanceof PeriodError) throw new CliError(error.message.replace(`"${error.field}"`, `--${error.field}`));
    throw error;
  }
  const sql = await openDatabase(values);
  try {
    const report = await insightsReport(sql, { orgId, ...period });
    console.log(values.json ? JSON.stringify(report) : formatReport(report));
  } finally {
    await sql.close();
  }
  return 0;
}

/** A plain-text table: columns padded, numbers right-aligned. */
export function textTable(columns: string[], rows: (string | number)[][]): string {
  const cells = [columns, ...rows.map((r) => r.map(String))];
  const widths = columns.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const numeric = columns.map((_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number'));
  const line = (r: string[]) => r.map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

const flat = (text: string, max: number) => {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
};

/** The report as the tables the CLI prints. */
export function formatReport(report: InsightsReport): string {
  const t = report.totals;
  const out: string[] = [`Insights for ${report.organization}, ${report.since} to ${report.until}`, ''];
  out.push(
    textTable(
      ['Conversations', 'Questions', 'Through MCP', 'Answered', 'Unanswered', 'Escalated', 'Failed', 'Thumbs up', 'Thumbs down'],
      [[t.conversations, t.questions, t.mcp, t.answered, t.unanswered, t.escalated, t.failed, t.thumbs_up, t.thumbs_down]],
    ),
  );
  out.push('', 'Per day', textTable(['Day', 'Conversations', 'Questions', 'Answered', 'Unanswered', 'Escalated', 'Up', 'Down'], report.days.map((d) => [d.date, d.conversations, d.questions, d.answered, d.unanswered, d.escalated, d.thumbs_up, d.thumbs_down])));
  out.push('', `Pages to write (unanswered questions by similarity; ${report.unanswered_group_count} groups)`);
  out.push(
    report.unanswered_groups.length
      ? textTable(['Questions', 'About', 'Latest', 'Examples'], report.unanswered_groups.map((g) => [g.count, g.terms.join(', '), g.latest_at.slice(0, 16), flat(g.examples.map((e) => e.question).join(' | '), 100)]))
      : 'Every question found an answer.',
  );
  out.push('', 'Answers rated down');
  out.push(
    report.thumbs_down.length
      ? textTable(['Rated', 'Question', 'Comment', 'Cited'], report.thumbs_down.map((d) => [d.rated_at.slice(0, 16), flat(d.question, 50), flat(d.comment ?? '', 50), flat(d.sources.map((s) => s.url).join(' '), 60)]))
      : 'None.',
  );
  out.push('', 'Sections cited most');
  out.push(report.top_sources.length ? textTable(['Citations', 'Section', 'URL'], report.top_sources.map((s) => [s.citations, flat(s.title, 50), s.url])) : 'None.');
  const searches = report.searches;
  out.push('', `Searches (${searches.totals.searches}, ${searches.totals.zero_result_searches} found nothing; ${searches.search_query_count} queries)`);
  out.push(searches.top_searches.length ? textTable(['Searches', 'Found nothing', 'Results', 'Query'], searches.top_searches.map((q) => [q.searches, q.zero_results, q.last_results, flat(q.query, 60)])) : 'None.');
  out.push('', 'Searches that found nothing');
  out.push(
    searches.zero_result_searches.length
      ? textTable(['Searches', 'Latest', 'Query', 'From page'], searches.zero_result_searches.map((q) => [q.searches, q.last_at.slice(0, 16), flat(q.query, 60), q.last_page_url ?? '']))
      : 'None.',
  );
  out.push('', `Pages never cited (${report.uncited_page_count})`);
  out.push(report.uncited_pages.length ? textTable(['Page', 'URL'], report.uncited_pages.map((p) => [flat(p.title, 50), p.url])) : 'None.');
  out.push('', `Pages questions come from (${report.question_page_count})`);
  out.push(
    report.question_pages.length
      ? textTable(['Questions', 'Unanswered', 'Page', 'URL'], report.question_pages.map((p) => [p.questions, p.unanswered, flat(p.title ?? '', 50), p.url]))
      : 'None (the widget says where a question was asked from).',
  );
  return out.join('\n');
}
