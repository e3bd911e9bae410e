import { ConfigError } from './config-error.js';

/** `$${` (an escaped `${`), or a reference: `${NAME}`, `${NAME:-default}`, or something malformed after `${`. */
const REFERENCE = /\$\$\{|\$\{([^}\n]*)(\})?/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The config's text with `${NAME}` and `${NAME:-default}` replaced from `env`, before the YAML is
 * parsed, so that secrets (tokens, webhook secrets, `metrics.token`) live in the environment or a
 * Secret instead of the file. `$${` stands for a literal `${`. As in a shell, the default applies
 * when the variable is unset or empty. Lines that are only a comment are left alone: a commented-out
 * line may name a variable nobody set. A value is inserted as text, so it cannot span lines: a line
 * break in it would add keys the file does not show, and would move every line number after it.
 */
export function substituteEnv(file: string, text: string, env: NodeJS.ProcessEnv): string {
  const problems: string[] = [];
  const lines = text.split('\n').map((line, index) => {
    if (/^\s*#/.test(line) || !line.includes('${')) return line;
    const at = `${file}:${index + 1}`;
    return line.replace(REFERENCE, (match, inner: string | undefined, closed: string | undefined) => {
      if (match === '$${') return '${';
      if (!closed) {
        problems.push(`${at}: "\${${inner}" has no closing "}" (write $\${ for a literal \${)`);
        return match;
      }
      const [name = '', fallback] = splitDefault(inner ?? '');
      if (!NAME.test(name)) {
        problems.push(`${at}: "\${${inner}}" is not a variable reference: use \${NAME} or \${NAME:-default} (write $\${ for a literal \${)`);
        return match;
      }
      const value = env[name];
      const chosen = value === undefined || (value === '' && fallback !== undefined) ? fallback : value;
      if (chosen === undefined) {
        problems.push(`${at}: environment variable ${name} is not set (set it, or give a default: \${${name}:-value})`);
        return match;
      }
      if (/[\r\n]/.test(chosen)) {
        problems.push(`${at}: environment variable ${name} holds a line break, which a value in the config cannot`);
        return match;
      }
      return chosen;
    });
  });
  if (problems.length > 0) throw new ConfigError([`${file} is not a valid statusbot config:`, ...problems.map((p) => `  ${p}`)].join('\n'));
  return lines.join('\n');
}

function splitDefault(inner: string): [string, string | undefined] {
  const at = inner.indexOf(':-');
  return at === -1 ? [inner, undefined] : [inner.slice(0, at), inner.slice(at + 2)];
}
