/** The provider's name and the library computing its metrics (part of each cache key). */
export const OPIK_PROVIDER = 'opik';
export const OPIK_LIBRARY = 'opik@2.0.40';
