/** The largest config file setup reads: far above any real one, far below what would hurt. */
export const MAX_CONFIG_BYTES = 16 * 1024 * 1024;
