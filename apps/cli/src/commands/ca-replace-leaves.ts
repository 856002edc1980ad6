import { Command, onePositional, printJson, stringOption, UsageError } from '../command';
import { details } from '../table';

/** `ca replace-leaves <ca-id> --reason TEXT`: the replace-now drill (see docs/operations.md). */
export const caReplaceLeaves: Command = {
  name: 'ca replace-leaves',
  summary: "pull every Active leaf's ACME renewal window of a CA into the past (ARI clients renew now)",
  usage: '<ca-id> --reason TEXT',
  options: { reason: { type: 'string' } },
  async run(context) {
    const id = onePositional(context.positionals, 'the CA id');
    const reason = stringOption(context.values, 'reason');
    if (reason === undefined) throw new UsageError('--reason is required (it goes into the audit log)');
    const answer = await context.api.post<{ caId: string; marked: number; requestedAt: string }>(
      `v2/ca/${encodeURIComponent(id)}/replace-leaves`,
      { reason },
    );
    if (context.json) return printJson(context, answer);
    context.print(
      details([
        ['CA', answer.caId],
        ['Leaves to replace', String(answer.marked)],
        ['Asked at', answer.requestedAt],
      ]),
    );
  },
};

/** `ca replacement <ca-id>`: how far the drill went. */
export const caReplacement: Command = {
  name: 'ca replacement',
  summary: 'count the leaves of a CA asked to be replaced: replaced and remaining',
  usage: '<ca-id>',
  options: {},
  async run(context) {
    const id = onePositional(context.positionals, 'the CA id');
    const answer = await context.api.get<{ total: number; replaced: number; remaining: number }>(
      `v2/ca/${encodeURIComponent(id)}/replacement`,
    );
    if (context.json) return printJson(context, answer);
    context.print(
      details([
        ['Total', String(answer.total)],
        ['Replaced', String(answer.replaced)],
        ['Remaining', String(answer.remaining)],
      ]),
    );
  },
};
