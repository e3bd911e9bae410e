import { z } from 'zod';

/**
 * Signing up for a status page's mail: the address, and the services to hear
 * about (urlnames of the page's services; none: all of them).
 */
export const emailSubscriptionInput = z.strictObject({
  email: z
    .string({ error: 'is required' })
    .trim()
    .min(1, { error: 'is required' })
    .max(254)
    .pipe(z.email({ error: 'must be an email address, such as you@example.com' }))
    .transform((email) => email.toLowerCase()),
  services: z
    .array(z.string().trim().min(1).max(100))
    .max(100)
    .default([])
    .transform((urlnames) => [...new Set(urlnames)]),
});
export type EmailSubscriptionInput = z.output<typeof emailSubscriptionInput>;
