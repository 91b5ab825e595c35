import type { Element, Metric, MetricContext, MetricMetadata, MetricOutcome, PortableMetricRef } from '@mce/core';
import { inSessionScope } from './session-cache.js';

export const NATIVE_PROVIDER = 'mce';
/** Module specifier the engine's thread/process strategies import a native metric from. */
export const NATIVE_MODULE = '@mce/provider-native';

/** A native metric: a plain Metric that also says how to load it off the main thread. */
export interface NativeMetric extends Metric {
  /** `import(portable.module)[portable.exportName]` is this metric. */
  readonly portable: PortableMetricRef;
  computeBatch(elements: Element[], ctx: MetricContext): Promise<Array<MetricOutcome | Error>>;
}

export type NativeMetricSpec = Omit<MetricMetadata, 'provider' | 'name' | 'dependsOn' | 'requirements'> &
  Partial<Pick<MetricMetadata, 'dependsOn' | 'requirements'>>;

/**
 * Builds a native metric named `name` (also its export name in `@mce/provider-native`). `compute` receives the
 * element and context; a level outside `spec.levels` is a usage error and throws.
 */
export function nativeMetric(
  name: string,
  spec: NativeMetricSpec,
  compute: (element: Element, ctx: MetricContext) => MetricOutcome,
): NativeMetric {
  const metadata: MetricMetadata = Object.freeze({
    name,
    provider: NATIVE_PROVIDER,
    requirements: [],
    dependsOn: [],
    options: [], // the deterministic metrics read none
    ...spec,
  });
  const levels = new Set(spec.levels);
  const checkLevel = (ctx: MetricContext) => {
    if (!levels.has(ctx.level)) throw new Error(`${name} is not defined at the ${ctx.level} level`);
  };
  return Object.freeze({
    metadata,
    portable: Object.freeze({ module: NATIVE_MODULE, exportName: name }),
    compute(element: Element, ctx: MetricContext): MetricOutcome {
      checkLevel(ctx);
      return compute(element, ctx);
    },
    /** All elements of a level in one call: the per-session lookups are made once, an element's error is its own. */
    async computeBatch(elements: Element[], ctx: MetricContext): Promise<Array<MetricOutcome | Error>> {
      checkLevel(ctx);
      const outcomes = inSessionScope(ctx.session, () =>
        elements.map((element): MetricOutcome | Error => {
          try {
            return compute(element, ctx);
          } catch (error) {
            return error instanceof Error ? error : new Error(String(error));
          }
        }),
      );
      return outcomes;
    },
  });
}

/** Short number for reasoning strings: 3 decimals from 1 up, 4 significant digits below. */
export function fmt(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return Math.abs(value) >= 1 ? String(Math.round(value * 1000) / 1000) : String(Number(value.toPrecision(4)));
}
