import { describe, expect, it } from 'vitest';
import { redactUrl } from '@mce/core';

describe('redactUrl', () => {
  it('masks a user-info password and secret-looking query parameters, and leaves the rest', () => {
    expect(redactUrl('postgres://admin:TopS3cret@db:5432/mce')).toBe('postgres://admin:***@db:5432/mce');
    expect(redactUrl('postgres://db:5999/mce?user=admin&password=TopS3cret')).toBe('postgres://db:5999/mce?user=admin&password=***');
    expect(redactUrl('http://u:p@proxy:8080/v1?api-key=AZUREKEY&api-version=2024-06-01')).toBe('http://u:***@proxy:8080/v1?api-key=***&api-version=2024-06-01');
    expect(redactUrl('https://api.openai.com/v1')).toBe('https://api.openai.com/v1');
  });

  it('masks user:password@ in a string that is not a valid URL', () => {
    expect(redactUrl('postgres://admin:TopS3cret@127.0.0.1:99999/db')).toBe('postgres://admin:***@127.0.0.1:99999/db');
    expect(redactUrl('bolt://neo:TopS3cret@[::1')).toBe('bolt://neo:***@[::1');
  });
});
