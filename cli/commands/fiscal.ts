import { Company } from '../../db/companies/company.entity.ts';
import { FiscalSyncRun } from '../../db/fiscal/fiscal-sync-run.entity.ts';
import {
  CIEC_STATUSES,
  findFiscalCredentials,
  setFiscalCredentials,
  type CredentialChanges,
} from '../../db/fiscal/fiscal-sync.repository.ts';
import type { FiscalCredential } from '../../db/fiscal/fiscal-credential.entity.ts';
import type { FiscalMailbox } from '../../db/fiscal/fiscal-mailbox.entity.ts';
import { findFiscalMailbox, setFiscalMailbox } from '../../db/fiscal/fiscal-mailbox.repository.ts';
import { companyEm, systemEm, type Orm } from '../../db/orm.ts';
import { oneOf, optional, reference, required } from '../arguments.ts';
import { readBounded } from '../files.ts';
import { MAX_PKCS12_BYTES, type CertificateDescription } from '../../services/dian/certificate.ts';
import {
  presentCertificate,
  registeredCertificate,
  registerSigningCertificate,
} from '../../services/dian/certificates.ts';
import type { Command, CommandInput } from '../command.ts';
import { dianEventPersonCommand } from './dian-event-person.ts';
import { MAILBOX_LOGIN_OPTIONS, MAILBOX_LOGIN_USAGE, mailboxLogin, presentOAuth2 } from './fiscal-mailbox-login.ts';
import { outboundPolicyFromEnv } from '../../platform/outbound-policy.ts';
import { CliError, notFound, usage } from '../errors.ts';

const RFC = /^[A-ZÑ&]{3,4}\d{6}[A-Z\d]{3}$/;
const NIT = /^\d{5,15}$/;

async function findCompany(orm: Orm, ref: string): Promise<Company> {
  const company = await systemEm(orm).findOne(Company, { id: ref });
  if (!company) throw notFound('company', ref);
  return company;
}

/** What the flags ask to change, checked against the company's country. */
function changesFrom(input: CommandInput, company: Company): CredentialChanges {
  const changes: CredentialChanges = {};
  const ciec = optional(input, 'ciec-status');
  const rfc = optional(input, 'rfc')?.toUpperCase();
  const forwarding = optional(input, 'dian-forwarding');
  const nit = optional(input, 'dian-nit');
  const representative = optional(input, 'dian-legal-representative');
  const testSet = optional(input, 'dian-test-set-id');
  const mexican = ciec !== undefined || rfc !== undefined;
  const colombian =
    forwarding !== undefined || nit !== undefined || representative !== undefined || testSet !== undefined;
  if (mexican && company.country !== 'MEX')
    throw new CliError('country_mismatch', '--ciec-status and --rfc are for Mexican companies (SAT)');
  if (colombian && company.country !== 'COL')
    throw new CliError('country_mismatch', '--dian-* flags are for Colombian companies (DIAN)');
  if (ciec !== undefined) changes.ciecStatus = oneOf(ciec, CIEC_STATUSES, 'ciec-status');
  if (rfc !== undefined) {
    if (!RFC.test(rfc)) throw usage('--rfc must be an RFC (3 or 4 letters, 6 digits, 3 characters)');
    changes.rfc = rfc;
  }
  if (forwarding !== undefined)
    changes.dianForwarding = oneOf(forwarding, ['on', 'off'] as const, 'dian-forwarding') === 'on';
  if (testSet !== undefined) {
    if (testSet !== '' && !/^[\w-]{1,64}$/.test(testSet))
      throw usage(
        '--dian-test-set-id must be the test set id DIAN gave (letters, digits and dashes), or empty to clear it',
      );
    changes.dianTestSetId = testSet === '' ? null : testSet;
  }
  if ((nit === undefined) !== (representative === undefined))
    throw usage('--dian-nit and --dian-legal-representative go together');
  if (nit !== undefined && representative !== undefined) {
    // NITs are written with dots and a check digit (900.123.456-7): DIAN's token request takes the bare number.
    const bare = nit.replace(/[.\s]/g, '').replace(/-\d$/, '');
    if (!NIT.test(bare)) throw usage('--dian-nit must be a NIT (digits, optionally with dots and its check digit)');
    if (representative === '') throw usage('--dian-legal-representative must not be empty');
    changes.dian = { nit: bare, legalRepresentative: representative };
  }
  return changes;
}

/** The mailbox as operators see it: never the password or the OAuth2 secret. */
function presentMailbox(mailbox: FiscalMailbox | null) {
  return mailbox
    ? {
        host: mailbox.host,
        port: mailbox.port,
        tls: mailbox.tls,
        user: mailbox.username,
        folder: mailbox.folder,
        imported_folder: mailbox.importedFolder,
        ...presentOAuth2(mailbox),
        updated_at: mailbox.updatedAt.toISOString(),
      }
    : null;
}

/** Where the IMAP mailbox the flags describe is: every flag but the folders is required, so a mailbox is set as a whole. */
function mailboxFrom(input: CommandInput) {
  const host = required(input, 'host');
  if (!/^[A-Za-z0-9.:[\]-]+$/.test(host)) throw usage('--host must be a host name or an IP address');
  const port = Number(required(input, 'port'));
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw usage('--port must be a TCP port (1 to 65535)');
  const tls = oneOf(required(input, 'tls'), ['true', 'false'] as const, 'tls') === 'true';
  const username = required(input, 'user');
  const folder = optional(input, 'folder') || 'INBOX';
  const importedFolder = optional(input, 'imported-folder') || 'Imported';
  if (folder === importedFolder) throw usage('--imported-folder must differ from --folder');
  return { host, port, tls, username, folder, importedFolder };
}

function present(
  company: Company,
  credential: FiscalCredential | null,
  certificate: CertificateDescription | null,
  mailbox: FiscalMailbox | null,
) {
  const base = {
    company: company.id,
    country: company.country,
    last_sync_started_at: credential?.lastSyncStartedAt?.toISOString() ?? null,
  };
  if (company.country === 'MEX')
    return { ...base, sat: { rfc: credential?.rfc ?? null, ciec_status: credential?.satCiecStatus ?? null } };
  return {
    ...base,
    dian: {
      forwarding: credential?.dianForwardingEnabled ?? false,
      nit: credential?.dianNit ?? null,
      legal_representative: credential?.dianLegalRepresentative ?? null,
      mailbox_folder: company.id,
      test_set_id: credential?.dianTestSetId ?? null,
      signing_certificate: certificate ? presentCertificate(certificate, new Date()) : null,
    },
    last_sync_at: credential?.lastSyncAt?.toISOString() ?? null,
    mailbox: presentMailbox(mailbox),
  };
}

/**
 * Fiscal synchronisation set-up (SAT CIEC status, DIAN forwarding and credentials, the IMAP mailbox of DIAN e-mail)
 * and the syncs a company ran.
 */
export const fiscalCommands: Command[] = [
  {
    group: 'fiscal',
    action: 'credentials',
    usage:
      'fiscal credentials --company REF [--ciec-status pending|valid|invalid] [--rfc RFC] [--dian-forwarding on|off] [--dian-nit NIT --dian-legal-representative NAME] [--dian-test-set-id ID]',
    options: {
      company: { type: 'string' },
      'ciec-status': { type: 'string' },
      rfc: { type: 'string' },
      'dian-forwarding': { type: 'string' },
      'dian-nit': { type: 'string' },
      'dian-legal-representative': { type: 'string' },
      'dian-test-set-id': { type: 'string' },
    },
    async run(input, context) {
      const orm = await context.orm();
      const company = await findCompany(orm, reference(input, 'company'));
      const changes = changesFrom(input, company);
      const em = companyEm(orm, company.id);
      const certificate = await registeredCertificate(em);
      const mailbox = await findFiscalMailbox(em);
      // Without flags the command shows what is registered.
      if (Object.keys(changes).length === 0)
        return present(company, await findFiscalCredentials(em), certificate, mailbox);
      // An RFC defaults to the company's tax id when that is one.
      const taxId = company.taxId?.toUpperCase() ?? '';
      if (changes.ciecStatus && !changes.rfc && RFC.test(taxId)) changes.rfc = taxId;
      return present(company, await setFiscalCredentials(em, company, changes), certificate, mailbox);
    },
  },
  {
    group: 'fiscal',
    action: 'certificate',
    usage: 'fiscal certificate --company REF --file CERT.p12 --password-file FILE',
    options: { company: { type: 'string' }, file: { type: 'string' }, 'password-file': { type: 'string' } },
    async run(input, context) {
      const companyId = reference(input, 'company');
      const pkcs12 = await readBounded(required(input, 'file'), MAX_PKCS12_BYTES, 'certificate_too_large');
      // The password comes from a file (a shell history or a process list would show it as a flag); one final
      // newline is the file's, not the password's.
      const password = (await readBounded(required(input, 'password-file'), 4096, 'password_file_too_large'))
        .toString('utf8')
        .replace(/\r?\n$/, '');
      const orm = await context.orm();
      const now = new Date();
      const certificate = await registerSigningCertificate(companyEm(orm, companyId), context.secrets(), {
        companyId,
        pkcs12,
        password,
        now,
      });
      return { company: companyId, signing_certificate: presentCertificate(certificate, now) };
    },
  },
  {
    group: 'fiscal',
    action: 'mailbox',
    usage: `fiscal mailbox --company REF --host HOST --port PORT --tls true|false --user USER ${MAILBOX_LOGIN_USAGE} [--folder INBOX] [--imported-folder Imported]`,
    options: {
      company: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      tls: { type: 'string' },
      user: { type: 'string' },
      ...MAILBOX_LOGIN_OPTIONS,
      folder: { type: 'string' },
      'imported-folder': { type: 'string' },
    },
    async run(input, context) {
      const orm = await context.orm();
      const company = await findCompany(orm, reference(input, 'company'));
      if (company.country !== 'COL')
        throw new CliError('country_mismatch', 'An IMAP mailbox of DIAN e-mail is for Colombian companies');
      const settings = mailboxFrom(input);
      const login = await mailboxLogin(input, context.secrets(), outboundPolicyFromEnv());
      const mailbox = await setFiscalMailbox(companyEm(orm, company.id), company, { ...settings, login });
      return { company: company.id, mailbox: presentMailbox(mailbox) };
    },
  },
  {
    group: 'fiscal',
    action: 'syncs',
    usage: 'fiscal syncs --company REF [--limit N]',
    options: { company: { type: 'string' }, limit: { type: 'string' } },
    async run(input, context) {
      const orm = await context.orm();
      const company = await findCompany(orm, reference(input, 'company'));
      const limit = Number(optional(input, 'limit') ?? 20);
      if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw usage('--limit must be an integer from 1 to 500');
      const runs = await companyEm(orm, company.id).find(FiscalSyncRun, {}, { orderBy: { startedAt: 'desc' }, limit });
      return {
        company: company.id,
        syncs: runs.map((run) => ({
          reference: run.id,
          country: run.country,
          started_at: run.startedAt.toISOString(),
          sync_from: run.syncFrom,
          sync_to: run.syncTo,
          status: run.status,
          fetching_status: run.fetchingStatus ?? null,
          extraction_id: run.extractionId ?? null,
          error_code: run.errorCode ?? null,
          message: run.message ?? null,
          documents_imported: run.documentsImported,
          entries_skipped: run.entriesSkipped,
          details: run.details ?? null,
          finished_at: run.finishedAt?.toISOString() ?? null,
        })),
      };
    },
  },
  dianEventPersonCommand,
];
