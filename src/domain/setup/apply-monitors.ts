import type { Kysely } from 'kysely';
import { dialectOf } from '../../db/dialect.js';
import type { Database } from '../../db/schema.js';
import { invalidInput } from '../errors.js';
import { newHeartbeatToken } from '../monitors/heartbeats.js';
import type { Path } from './apply-chat.js';
import { companyName, ownedBy } from './setup-lookups.js';
import type { CompanySpec } from './setup.js';

/** The company's custom monitors, at the ids the config gives them; `path` is that of the list. */
export async function applyMonitors(
  trx: Kysely<Database>,
  companyId: number,
  monitors: CompanySpec['custom_monitors'],
  now: number,
  path: Path,
): Promise<void> {
  for (const [i, m] of monitors.entries()) {
    const existing = await trx.selectFrom('custom_monitors').select(['company_id', 'name']).where('id', '=', m.id).executeTakeFirst();
    if (existing && existing.company_id !== companyId) {
      const holder = ownedBy(existing.name, await companyName(trx, existing.company_id));
      throw invalidInput([...path, i, 'id'], `monitor id ${m.id} is already taken by ${holder}`);
    }
    const watched =
      m.service === null
        ? null
        : await trx.selectFrom('services').select('id').where('urlname', '=', m.service).where('company_id', '=', companyId).executeTakeFirst();
    if (m.service !== null && !watched) {
      throw invalidInput([...path, i, 'service'], `service must be the urlname of a custom service of the company, not ${m.service}`);
    }
    const fields = {
      name: m.name,
      url: m.url,
      probe_type: m.probe_type,
      keyword: m.keyword,
      interval_seconds: m.interval_seconds,
      service_id: watched?.id ?? null,
      dns_record: m.record ?? null,
      dns_expect: m.expect ? JSON.stringify(m.expect) : null,
      dns_server: m.dns_server ?? null,
      days_before_expiry: m.days_before_expiry ?? null,
      grace_seconds: m.grace_seconds ?? null,
    };
    if (existing) {
      await trx
        .updateTable('custom_monitors')
        .set({ ...fields, updated_at: now })
        .where('id', '=', m.id)
        .execute();
      // A monitor that becomes a heartbeat gets its push address now; one that has it keeps it.
      if (m.probe_type === 'heartbeat') {
        await trx
          .updateTable('custom_monitors')
          .set({ heartbeat_token: newHeartbeatToken(), last_heartbeat_at: now })
          .where('id', '=', m.id)
          .where('heartbeat_token', 'is', null)
          .execute();
      }
    } else {
      const heartbeat = m.probe_type === 'heartbeat' ? { heartbeat_token: newHeartbeatToken(), last_heartbeat_at: now } : {};
      await trx
        .insertInto('custom_monitors')
        .values({ id: m.id, company_id: companyId, ...fields, ...heartbeat, status: 'ok', created_at: now, updated_at: now })
        .execute();
    }
  }
  await dialectOf(trx).afterGivenIds(trx, 'custom_monitors');
}
