/**
 * The demo's default pace: an event every 1.5 s per session, on average (calm enough to try
 * pause and resume). Its own module, so the definition and the command read it without
 * importing each other.
 */
export const DEMO_PACE_MS = 1500;
