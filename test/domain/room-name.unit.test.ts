import { describe, expect, it } from 'vitest';
import { ROOM_NAME_MAX, roomName } from '../../src/domain/chat/room-name.js';

describe('roomName', () => {
  it.each([
    [42, 'Checkout: payments FAIL (EU)!', 1, 'inc-42-checkout-payments-fail-eu'],
    [7, 'Café über-slow  — logins', 1, 'inc-7-cafe-uber-slow-logins'],
    [7, '🔥🔥🔥', 1, 'inc-7'],
    [7, 'Name taken', 2, 'inc-7-name-taken-2'],
    [123456, 'snake_case and #hash', 1, 'inc-123456-snake-case-and-hash'],
  ])('%i %j (attempt %i) → %s', (id, title, attempt, expected) => {
    expect(roomName(id, title, attempt)).toBe(expected);
  });

  it("keeps within Slack's 80 and Discord's 100 characters, whole words only, the attempt kept", () => {
    const title = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    for (const attempt of [1, 12]) {
      const name = roomName(999_999_999, title, attempt);
      expect(name.length).toBeLessThanOrEqual(ROOM_NAME_MAX);
      expect(name).toMatch(/^inc-999999999(-word\d+)+(-12)?$/);
      if (attempt > 1) expect(name.endsWith('-12')).toBe(true);
    }
  });

  it('uses only lowercase letters, digits and single hyphens', () => {
    expect(roomName(1, '  --Hello__World--  ')).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });
});
