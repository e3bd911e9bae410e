import { startFakeJsonApi } from './fake-json-api.js';
import type { Answer, FakeJsonApi } from './fake-json-api.js';

export interface FakeTelegram extends FakeJsonApi {
  /** Messages posted, with the id each was given. */
  readonly messages: { id: number; chatId: string; text: string; replyTo: number | null }[];
  /** The answer to a bot that sends too fast: 429 with `parameters.retry_after`. */
  tooManyRequests(retryAfterSeconds: number): Answer;
}

/** The Telegram Bot API's sendMessage for one bot: answers `{ ok, result: Message }`; 401 for another token. */
export async function startFakeTelegram(token: string): Promise<FakeTelegram> {
  const messages: FakeTelegram['messages'] = [];
  let next = 100;
  const api = await startFakeJsonApi({
    refuse(call) {
      if (call.path !== `/bot${token}/sendMessage`) return { status: 401, body: { ok: false, error_code: 401, description: 'Unauthorized' } };
      if (typeof call.json?.text !== 'string' || call.json.text.length === 0)
        return { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: message text is empty' } };
      return null;
    },
    accept(call) {
      const id = next++;
      const replyTo = call.json.reply_parameters?.message_id ?? call.json.reply_to_message_id ?? null;
      messages.push({ id, chatId: String(call.json.chat_id), text: call.json.text, replyTo });
      return {
        status: 200,
        body: {
          ok: true,
          result: { message_id: id, date: Math.floor(Date.now() / 1000), chat: { id: Number(call.json.chat_id), type: 'supergroup' }, text: call.json.text },
        },
      };
    },
  });
  return Object.assign(api, {
    messages,
    tooManyRequests: (retryAfterSeconds: number): Answer => ({
      status: 429,
      body: { ok: false, error_code: 429, description: `Too Many Requests: retry after ${retryAfterSeconds}`, parameters: { retry_after: retryAfterSeconds } },
    }),
  });
}
