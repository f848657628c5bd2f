// A private Dovecot IMAP server for tests: its own configuration, users, mail and sockets in a temporary directory,
// listening on loopback only. Plain IMAP always; implicit TLS (imaps) too when given a certificate.
import { spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { ImapFlow } from 'imapflow';
import { freePort } from '../../platform/ports.ts';
import { tempDir } from '../../platform/temp-dir.ts';

export interface Dovecot {
  host: string;
  /** Plain IMAP (no STARTTLS is offered when the server has no certificate). */
  port: number;
  /** Implicit TLS (imaps), when started with a certificate. */
  tlsPort: number | null;
  /** Adds a user with a mailbox of its own (Dovecot reads the changed passwd file at the next login). */
  addUser(name: string, password: string): void;
  /** Ends every session of `user` (`doveadm kick`): the server says BYE and closes, as a provider does when a session's token expires. */
  kick(user: string): Promise<void>;
  /** A test's own IMAP client on the plain port, logged in with a password (STARTTLS trusting `ca`, when given). */
  login(user: string, password: string, ca?: string): Promise<ImapFlow>;
  stop(): Promise<void>;
}

export interface DovecotOptions {
  /** A server certificate and its key (PEM files) for the imaps listener. */
  tls?: { certFile: string; keyFile: string };
  /**
   * Also accepts SASL XOAUTH2 logins, validating each access token with the token-introspection endpoint at this URL
   * (RFC 7662, POSTed as a form): active, and the mailbox it opens as `username`. Passwords keep working (PLAIN, LOGIN).
   */
  oauth2?: { introspectionUrl: string };
}

/** Dovecot's default `nobody`: the static userdb needs numeric ids, and the mail must belong to them. */
const MAIL_UID = 65534;
const DOVECOT = process.env.DOVECOT_PATH ?? '/usr/sbin/dovecot';
const DOVEADM = process.env.DOVEADM_PATH ?? '/usr/bin/doveadm';

/** Starts `dovecot -c` on free loopback ports and resolves once the IMAP port accepts connections. */
export async function startDovecot(options: DovecotOptions = {}): Promise<Dovecot> {
  const dir = tempDir('ap-dovecot-');
  const [port, tlsPort] = await Promise.all([freePort(), options.tls ? freePort() : Promise.resolve(null)]);
  const passwd = join(dir, 'passwd');
  writeFileSync(passwd, '');
  mkdirSync(join(dir, 'home'));
  const config = join(dir, 'dovecot.conf');
  const oauth2 = join(dir, 'dovecot-oauth2.conf.ext');
  if (options.oauth2)
    writeFileSync(
      oauth2,
      `introspection_mode = post
introspection_url = ${options.oauth2.introspectionUrl}
username_attribute = username
active_attribute = active
active_value = true
`,
    );
  writeFileSync(
    config,
    `base_dir = ${join(dir, 'run')}
state_dir = ${join(dir, 'state')}
log_path = ${join(dir, 'dovecot.log')}
protocols = imap
listen = 127.0.0.1
${options.tls ? `ssl = yes\nssl_cert = <${options.tls.certFile}\nssl_key = <${options.tls.keyFile}` : 'ssl = no'}
disable_plaintext_auth = no
auth_mechanisms = plain login${options.oauth2 ? ' xoauth2' : ''}
default_login_user = nobody
passdb {
  driver = passwd-file
  args = scheme=PLAIN ${passwd}
  mechanisms = plain login
}
${options.oauth2 ? `passdb {\n  driver = oauth2\n  mechanisms = xoauth2\n  args = ${oauth2}\n}\n` : ''}userdb {
  driver = static
  args = uid=${MAIL_UID} gid=${MAIL_UID} home=${join(dir, 'home')}/%u
}
mail_location = maildir:~/Maildir
service imap-login {
  chroot =
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = ${tlsPort ?? 0}
    ssl = yes
  }
}
service anvil {
  chroot =
}
`,
  );
  // The master daemonises: with its streams on a pipe, a parent waiting on them would hang.
  const started = spawn(DOVECOT, ['-c', config], { stdio: 'ignore' });
  const exit = await new Promise<number | null>((resolve) => started.once('exit', resolve));
  if (exit !== 0) throw new Error(`dovecot -c exited with ${exit}: ${logOf(dir)}`);
  const stop = async () => {
    const pidFile = join(dir, 'run', 'master.pid');
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, 'utf8').trim());
      try {
        process.kill(pid, 'SIGTERM');
        await until(() => !alive(pid), 10_000, 'Dovecot to stop');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await acceptsConnections(port, dir);
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    host: '127.0.0.1',
    port,
    tlsPort,
    addUser(name, password) {
      const home = join(dir, 'home', name);
      mkdirSync(home, { recursive: true });
      chownSync(home, MAIL_UID, MAIL_UID);
      writeFileSync(passwd, `${readFileSync(passwd, 'utf8')}${name}:${password}\n`);
    },
    async kick(user) {
      const kicked = spawn(DOVEADM, ['-c', config, 'kick', user], { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      kicked.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      kicked.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => kicked.once('exit', resolve));
      if (code !== 0) throw new Error(`doveadm kick ${user} exited with ${code}: ${output}`);
    },
    async login(user, password, ca) {
      const client = new ImapFlow({
        host: '127.0.0.1',
        port,
        secure: false,
        auth: { user, pass: password },
        ...(ca ? { tls: { ca: [ca] } } : {}),
        logger: false,
      });
      await client.connect();
      return client;
    },
    stop,
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function logOf(dir: string): string {
  const log = join(dir, 'dovecot.log');
  return existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : '(no log)';
}

async function acceptsConnections(port: number, dir: string): Promise<void> {
  const tryOnce = () =>
    new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
  try {
    await until(tryOnce, 15_000, `Dovecot to accept connections on ${port}`);
  } catch (error) {
    throw new Error(`${(error as Error).message}: ${logOf(dir)}`);
  }
}

/** Checks `condition` every 50 ms until it holds, or fails after `timeoutMs`. */
async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
