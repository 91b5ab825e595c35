/**
 * Metric provider plugins named in mce_config.yaml (`providers:`): each entry is a package name or a path (relative to
 * the config file) of a module whose default export, or `provider` export, is a MetricProvider (or a list of them).
 * Their metrics can then be selected in `metrics:` by name or as `provider:name`.
 */
import { isAbsolute, dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { MetricProvider } from '@mce/core';

export class PluginError extends Error {
  override name = 'PluginError';
}

function isProvider(value: unknown): value is MetricProvider {
  const p = value as Partial<MetricProvider> | null;
  return !!p && typeof p === 'object' && typeof p.name === 'string' && typeof p.metrics === 'function';
}

/** Resolve a `providers:` entry: bare names are packages, `./x` and `../x` are relative to the config file. */
export function pluginSpecifier(entry: string, configFile: string | undefined, cwd: string): string {
  if (!entry.startsWith('.') && !isAbsolute(entry)) return entry;
  const base = configFile ? dirname(resolve(cwd, configFile)) : cwd;
  return pathToFileURL(resolve(base, entry)).href;
}

export async function loadProviders(entries: readonly string[], configFile: string | undefined, cwd = process.cwd()): Promise<MetricProvider[]> {
  const providers: MetricProvider[] = [];
  for (const entry of entries) {
    let mod: Record<string, unknown>;
    try {
      mod = (await import(pluginSpecifier(entry, configFile, cwd))) as Record<string, unknown>;
    } catch (error) {
      throw new PluginError(`providers: cannot load "${entry}": ${(error as Error).message}`);
    }
    const exported = mod.default ?? mod.provider;
    const list = Array.isArray(exported) ? exported : [exported];
    if (list.length === 0 || !list.every(isProvider)) {
      throw new PluginError(`providers: "${entry}" exports no MetricProvider (expected a default or "provider" export with name and metrics())`);
    }
    providers.push(...list);
  }
  return providers;
}
