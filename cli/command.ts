import type { ParseArgsOptionsConfig } from 'node:util';
import type { CliContext } from './context.ts';

export interface CommandInput {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
}

/** One `<group> <action>` of the operator CLI: its flags, and what it prints as JSON. */
export interface Command {
  group: string;
  action: string;
  usage: string;
  options: ParseArgsOptionsConfig;
  positionals?: boolean;
  run(input: CommandInput, context: CliContext): Promise<unknown>;
}
