/**
 * Interaction payloads as Discord sends them (API JSON, v10), for driving the
 * real handler over HTTP or the gateway.
 */

export const GUILD = '111';
export const CHANNEL = '222';
export const APPLICATION = '900000000000000001';

export const PERMISSIONS = { none: '0', administrator: '8', manageChannels: '16', manageGuild: '32' } as const;

let next = 1;

export interface Where {
  guild?: string | null;
  channel?: string;
  permissions?: string;
  /** The member's user id. */
  userId?: string;
}

function base(type: number, where: Where = {}) {
  const n = next++;
  const guild = where.guild === undefined ? GUILD : where.guild;
  const channel = where.channel ?? CHANNEL;
  const user = { id: where.userId ?? '700000000000000001', username: 'alice', discriminator: '0', global_name: 'Alice', avatar: null };
  return {
    id: String(1_400_000_000_000_000_000n + BigInt(n)),
    application_id: APPLICATION,
    type,
    token: `interaction-token-${n}`,
    version: 1,
    channel_id: channel,
    channel: { id: channel, type: 0, name: 'ops', guild_id: guild ?? undefined },
    app_permissions: '2248473465835073',
    locale: 'en-US',
    entitlements: [],
    attachment_size_limit: 8_388_608,
    ...(guild
      ? {
          guild_id: guild,
          guild: { id: guild, locale: 'en-US', features: [] },
          guild_locale: 'en-US',
          context: 0,
          authorizing_integration_owners: { '0': guild },
          member: {
            user,
            roles: [],
            permissions: where.permissions ?? PERMISSIONS.administrator,
            joined_at: '2026-01-01T00:00:00.000Z',
            deaf: false,
            mute: false,
            flags: 0,
          },
        }
      : { user, context: 1, authorizing_integration_owners: { '1': user.id } }),
  };
}

type Value = string | number | boolean;

/** string → STRING, integer → INTEGER, boolean → BOOLEAN */
const basicOptions = (options: Record<string, Value>, focused?: string) =>
  Object.entries(options).map(([name, value]) => ({
    name,
    type: typeof value === 'string' ? 3 : typeof value === 'number' ? 4 : 5,
    value,
    ...(name === focused ? { focused: true } : {}),
  }));

/** "statusbot subscribe board" → the nested subcommand group / subcommand options. */
function commandData(path: string, options: Record<string, Value>, focused?: string) {
  const [name, ...rest] = path.split(' ');
  let inner: unknown[] = basicOptions(options, focused);
  if (rest.length === 2) inner = [{ name: rest[0], type: 2, options: [{ name: rest[1], type: 1, options: inner }] }];
  else if (rest.length === 1) inner = [{ name: rest[0], type: 1, options: inner }];
  return { id: '800000000000000001', name, type: 1, options: inner };
}

export const ping = () => ({ ...base(1), guild_id: undefined, member: undefined });

export const command = (path: string, options: Record<string, Value> = {}, where?: Where) => ({
  ...base(2, where),
  data: commandData(path, options),
});

export const autocomplete = (path: string, options: Record<string, Value>, focused: string, where?: Where) => ({
  ...base(4, where),
  data: commandData(path, options, focused),
});

export const button = (customId: string, where?: Where) => ({
  ...base(3, where),
  message: { id: '1300000000000000999', channel_id: where?.channel ?? CHANNEL, content: '', embeds: [], components: [] },
  data: { custom_id: customId, component_type: 2 },
});

/** Text inputs by string value, selects by an array of values; wrapped in labels as modals are now. */
export const modalSubmit = (customId: string, fields: Record<string, string | string[]>, where?: Where) => ({
  ...base(5, where),
  data: {
    custom_id: customId,
    components: Object.entries(fields).map(([id, value], i) => ({
      type: 18,
      id: i + 1,
      component: Array.isArray(value) ? { type: 3, id: i + 10, custom_id: id, values: value } : { type: 4, id: i + 10, custom_id: id, value },
    })),
  },
});
