/**
 * What `mce serve` calls when this package is installed: the legacy routes over its client, with the api-layer of
 * API_BASE_URL when set, and the lines to print at start-up (where sessions come from, the ignored variables).
 */
import type { Hono } from 'hono';
import { redactUrl } from '@mce/core';
import type { MCEClient } from '@mce/client';
import { ApiLayer } from './api-layer.js';
import { legacyRoutes } from './app.js';
import { readLegacyEnv } from './env.js';

export interface LegacyMount {
  app: Hono;
  notices: string[];
}

export function legacyMount(client: MCEClient, env: NodeJS.ProcessEnv): LegacyMount {
  const legacy = readLegacyEnv(env);
  const apiLayer = legacy.apiLayer ? new ApiLayer(legacy.apiLayer) : undefined;
  const app = legacyRoutes(client, { ...(apiLayer ? { source: apiLayer, sink: apiLayer } : {}), settings: legacy.settings });
  const from = apiLayer ? `the api-layer at ${redactUrl(legacy.apiLayer?.baseUrl ?? '')}` : 'the configured store';
  return { app, notices: [`telemetry-hub routes (POST /compute_metrics, GET /metrics, /status, /health) read sessions from ${from}`, ...legacy.ignored] };
}
