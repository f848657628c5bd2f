/** The last release: its tag, and the commit it names (a clone of main may carry no tags). */
export const LAST_RELEASE = { tag: 'v0.1.0', commit: '8f1297a80af00791dcd63d651d9fc332c366d196' } as const;
