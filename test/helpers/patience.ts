/**
 * How long a test waits for an event before it calls the wait hung. It is not a guess at how long the
 * event takes: on a machine shared with other jobs (CI, a load average of 20 on two cores) an event can
 * take many times its quiet time, so this only tells "slow" from "never". A test that asserts something
 * happens within a bound the product promises measures that bound itself, on the product's own clock.
 * STATUSBOT_TEST_PATIENCE_MS changes it (shorter to find a hang quickly while writing a test).
 */
export const PATIENCE_MS = Number(process.env.STATUSBOT_TEST_PATIENCE_MS) || 180_000;

/** A test's or hook's own limit: several waits of PATIENCE_MS fit in it. */
export const TEST_LIMIT_MS = 3 * PATIENCE_MS;
