import { execFileSync } from 'node:child_process';

/** The last release: its tag, and the commit it names (a clone of main may carry no tags). */
export const LAST_RELEASE = { tag: 'v0.1.0', commit: '8f1297a80af00791dcd63d651d9fc332c366d196' } as const;

/**
 * The SHA-256 of each migration a release has run, as it ran it: databases out there ran these, so they are never
 * edited (a change is a new migration). A release adds its new ones here.
 */
export const RELEASED_MIGRATIONS: Record<string, string> = {
  'Migration20261125191000_initial.ts': '8a92b0db598cfdf8f8e2e9fe7390ee8a6b4ab6d3e2359b6230faa22673f10395',
  'Migration20261128220000_accounting_agent.ts': 'f19df55fea8744e54c5a1e08e997a1401574c6ea9cfb8123c4cda6e9906f3c8b',
  'Migration20261128230200_sat_metadata_extraction.ts':
    'aa45a0c7fbac12ed64cfbd48ed8d1a18bba97e9e245744a91d0f376b27106d35',
  'Migration20261128230400_advance_crossings.ts': '832e11863e3ba28b7126df4338b4dc4d715d964b67efdfabefc05f53d65911cb',
  'Migration20261129003500_document_content_hash.ts':
    '2e8baecec6b9ecbc8cd8a58cc7d477fe0196db38471a8eb1db6380579d18d3c2',
  'Migration20261129120000_mailbox_oauth2.ts': '7f11fb1bff19550622a14ddd04046360824a94f067e9b04d6217d8861796bdcf',
};

/**
 * Makes sure the release's commit is in this clone: a shallow clone or one without tags may lack it, so its history
 * is fetched once from the clone's origin before giving up with a clear reason.
 */
export function ensureReleaseCommit(repo: string): void {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'pipe' });
  const present = () => {
    try {
      git('cat-file', '-e', `${LAST_RELEASE.commit}^{commit}`);
      return true;
    } catch {
      return false;
    }
  };
  if (present()) return;
  for (const fetch of [
    ['fetch', '--quiet', '--unshallow'],
    ['fetch', '--quiet', 'origin', LAST_RELEASE.commit],
  ])
    try {
      git(...fetch);
    } catch {
      // The next way, or the reason below.
    }
  if (!present())
    throw new Error(
      `Release ${LAST_RELEASE.tag} (${LAST_RELEASE.commit}) is not in this clone and its origin did not give it: ` +
        'clone main with its history (no --depth)',
    );
}
