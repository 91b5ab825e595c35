/** The LLM-judged and MCP metrics announce the metadata of their core spec catalog entries. */
import { describe, expect, it } from 'vitest';
import { LLM_JUDGED_SPECS, MCP_OPTION_NAMES, MCP_SPECS, type MetricMetadata } from '@mce/core';
import { LLM_JUDGED_METRICS, MCP_METRICS } from '../../src/index.js';
import { McpOptionsSchema } from '../../src/mcp/options.js';

const byName = (xs: ReadonlyArray<{ name: string }>) => xs.map((x) => x.name).sort();

describe('agreement with the core spec catalog', () => {
  it('the LLM-judged metrics (aggregate included) are exactly the LLM_JUDGED_SPECS entries, metadata and all', () => {
    expect(byName(LLM_JUDGED_METRICS.map((m) => m.metadata))).toEqual(byName(LLM_JUDGED_SPECS));
    for (const m of LLM_JUDGED_METRICS) {
      const spec = LLM_JUDGED_SPECS.find((s) => s.name === m.metadata.name);
      expect({ ...m.metadata }, m.metadata.name).toEqual({ ...spec });
    }
  });

  it('the MCP metrics have the levels, nature, unit, range, requirements and dependencies of their MCP_SPECS entries', () => {
    expect(byName(MCP_METRICS.map((m) => m.metadata))).toEqual(byName(MCP_SPECS));
    // The MCP metrics describe their sub-scores in more words than the catalog: the description is their own.
    const pick = ({ description: _description, ...rest }: MetricMetadata) => rest;
    for (const m of MCP_METRICS) {
      const spec = MCP_SPECS.find((s) => s.name === m.metadata.name)!;
      expect(pick(m.metadata), m.metadata.name).toEqual(pick(spec));
    }
  });

  it('the MCP metrics declare exactly the options their parser reads, the other judged metrics the judge model', () => {
    expect(Object.keys(McpOptionsSchema.shape)).toEqual([...MCP_OPTION_NAMES]);
    for (const m of MCP_METRICS) expect(m.metadata.options, m.metadata.name).toEqual(MCP_OPTION_NAMES);
    for (const m of LLM_JUDGED_METRICS) {
      expect(m.metadata.options, m.metadata.name).toEqual(m.metadata.nature === 'aggregate' ? [] : ['model']);
    }
  });
});
