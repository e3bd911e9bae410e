import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Certificate {
  key: string;
  cert: string;
  /** The certificate's last valid moment. */
  notAfter: Date;
}

/** The least `openssl ca` needs: it alone sets any validity period, one in the past included. */
const CA_CONFIG = `[ ca ]
default_ca = ca_default
[ ca_default ]
database = index.txt
new_certs_dir = .
serial = serial
default_md = sha256
policy = policy_any
copy_extensions = copy
unique_subject = no
[ policy_any ]
commonName = supplied
`;

const stamp = (d: Date) => `${d.toISOString().slice(0, 19).replace(/[-:T]/g, '')}Z`;

/**
 * A self-signed certificate for `localhost` and 127.0.0.1, made by the openssl
 * command (node:crypto cannot write X.509), valid from `from` until `until`.
 */
export function selfSignedCertificate(options: { from: Date; until: Date }): Certificate {
  const dir = mkdtempSync(join(tmpdir(), 'statusbot-cert-'));
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  try {
    writeFileSync(join(dir, 'ca.cnf'), CA_CONFIG);
    writeFileSync(join(dir, 'index.txt'), '');
    writeFileSync(join(dir, 'serial'), '01\n');
    run(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'key.pem']);
    run(['req', '-new', '-key', 'key.pem', '-out', 'req.csr', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1']);
    run(
      ['ca', '-config', 'ca.cnf', '-selfsign', '-keyfile', 'key.pem', '-in', 'req.csr', '-out', 'cert.pem', '-batch', '-notext'].concat([
        '-startdate',
        stamp(options.from),
        '-enddate',
        stamp(options.until),
      ]),
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), notAfter: options.until };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
