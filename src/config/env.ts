/** Chat credentials and API addresses; taken from the environment only, never from the config file. */
export interface ChatEnv {
  /** Slack is on with a bot token and either a signing secret (HTTP mode) or an app token (Socket Mode). */
  slack: {
    botToken: string;
    signingSecret: string | null;
    /** Socket Mode when set. */
    appToken: string | null;
    /** Base of the Web API, e.g. https://slack.com/api/ (tests and proxies override it). */
    apiUrl: string | null;
  } | null;
  /** Discord is on with a bot token and the application id. */
  discord: {
    token: string;
    applicationId: string;
    /** HTTP interactions at /discord/interactions when set. */
    publicKey: string | null;
    /** The gateway (a discord.js Client) unless DISCORD_GATEWAY=off. */
    gateway: boolean;
    /** Base of the REST API, e.g. https://discord.com/api (tests and proxies override it). */
    apiUrl: string | null;
  } | null;
  /** Why an adapter is off, said once at start. */
  notes: string[];
  /** What each platform that is off lacks, in a few words (`no SLACK_BOT_TOKEN`). */
  off: Partial<Record<'slack' | 'discord', string>>;
}

const value = (env: NodeJS.ProcessEnv, name: string): string | null => {
  const v = env[name]?.trim();
  return v ? v : null;
};

export function readChatEnv(env: NodeJS.ProcessEnv): ChatEnv {
  const notes: string[] = [];
  const off: ChatEnv['off'] = {};
  const botToken = value(env, 'SLACK_BOT_TOKEN');
  const signingSecret = value(env, 'SLACK_SIGNING_SECRET');
  const appToken = value(env, 'SLACK_APP_TOKEN');
  let slack: ChatEnv['slack'] = null;
  if (botToken && (signingSecret || appToken)) {
    slack = { botToken, signingSecret, appToken, apiUrl: value(env, 'SLACK_API_URL') };
  } else {
    off.slack = botToken ? 'no SLACK_SIGNING_SECRET or SLACK_APP_TOKEN' : 'no SLACK_BOT_TOKEN';
    notes.push('Slack is off: set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET (HTTP mode) or SLACK_APP_TOKEN (Socket Mode)');
  }

  const token = value(env, 'DISCORD_TOKEN');
  const applicationId = value(env, 'DISCORD_APPLICATION_ID');
  let discord: ChatEnv['discord'] = null;
  if (token && applicationId) {
    discord = {
      token,
      applicationId,
      publicKey: value(env, 'DISCORD_PUBLIC_KEY'),
      gateway: value(env, 'DISCORD_GATEWAY')?.toLowerCase() !== 'off',
      apiUrl: value(env, 'DISCORD_API_URL'),
    };
  } else {
    off.discord = token ? 'no DISCORD_APPLICATION_ID' : 'no DISCORD_TOKEN';
    notes.push('Discord is off: set DISCORD_TOKEN and DISCORD_APPLICATION_ID (and DISCORD_PUBLIC_KEY for HTTP interactions)');
  }
  return { slack, discord, notes, off };
}
