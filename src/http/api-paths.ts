export const API_PREFIX = '/api/v2';
/** Where every API path begins; `/api/v2` itself is under the API too. */
export const UNDER_API = `${API_PREFIX}/`;
export const MAX_BODY_BYTES = 1024 * 1024;
/** The API description, served without an API key. */
export const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;
