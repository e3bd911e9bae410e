/**
 * The ranges of service ids. A company's custom services take the ids its config gives them,
 * so the catalog never takes one of those: API users keep a custom service's id in their
 * scripts, and a catalog service keeps the same id on every install.
 */

/** Ids a config may give a company's custom service. */
export const CUSTOM_SERVICE_IDS = { min: 1, max: 99_999 } as const;

/**
 * Built-in catalog services, each at a fixed id: the demo services at 100,001–100,004, the
 * vendor catalog from 100,100 at the id `src/ingest/vendor-catalog.json` gives each vendor.
 */
export const BUILT_IN_SERVICE_IDS = { min: 100_000, max: 899_999 } as const;

/**
 * Catalog services without a fixed id (those the config's `services` adds to the built-in
 * catalog) take the next free id from here.
 */
export const OTHER_CATALOG_SERVICE_IDS_FROM = 900_000;

export const isCustomServiceId = (id: number): boolean => id >= CUSTOM_SERVICE_IDS.min && id <= CUSTOM_SERVICE_IDS.max;

/** The config's rule, in the words its error shows. */
export const CUSTOM_SERVICE_ID_RULE = `must be from ${CUSTOM_SERVICE_IDS.min} to ${CUSTOM_SERVICE_IDS.max} (ids from ${BUILT_IN_SERVICE_IDS.min} up belong to the catalog)`;
