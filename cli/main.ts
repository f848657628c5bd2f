// The operator CLI: `npm run --silent ops -- <group> <action> [flags]`.
// Prints one JSON object on stdout (exit 0), or `{ "error": { code, message } }` on stderr (exit non-zero).
import { parseArgs } from 'node:util';
import type { Command } from './command.ts';
import { accountingCommands } from './commands/accounting.ts';
import { agentCommands } from './commands/agents.ts';
import { bankAccountCommands } from './commands/bank-accounts.ts';
import { companyCommands } from './commands/companies.ts';
import { documentCommands } from './commands/documents.ts';
import { expenseCommands } from './commands/expenses.ts';
import { fiscalCommands } from './commands/fiscal.ts';
import { fiscalIntakeCommand } from './commands/fiscal-intake.ts';
import { flowCommands } from './commands/flows.ts';
import { paymentCommands } from './commands/payments.ts';
import { webhookCommands } from './commands/webhooks.ts';
import { createCliContext } from './context.ts';
import { Refusal } from '../platform/refusal.ts';
import { CliError, usage } from './errors.ts';

const COMMANDS: Command[] = [
  ...companyCommands,
  ...documentCommands,
  ...expenseCommands,
  ...flowCommands,
  ...agentCommands,
  ...accountingCommands,
  ...webhookCommands,
  ...paymentCommands,
  ...bankAccountCommands,
  ...fiscalCommands,
  fiscalIntakeCommand,
];

function help(): string {
  return [
    'usage: npm run --silent ops -- <group> <action> [flags]',
    '',
    ...COMMANDS.map((command) => `  ${command.usage}`),
  ].join('\n');
}

async function main(argv: string[]): Promise<unknown> {
  const [group, action, ...rest] = argv;
  if (!group || group === 'help' || group === '--help') {
    process.stderr.write(`${help()}\n`);
    process.exit(group ? 0 : 2);
  }
  const command = COMMANDS.find((candidate) => candidate.group === group && candidate.action === action);
  if (!command) throw usage(`Unknown command "${[group, action].filter(Boolean).join(' ')}". Commands:\n${help()}`);
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      options: command.options,
      allowPositionals: command.positionals ?? false,
      strict: true,
    });
  } catch (error) {
    throw usage(`${(error as Error).message}\nusage: ${command.usage}`);
  }
  const context = createCliContext();
  try {
    return await command.run({ values: parsed.values, positionals: parsed.positionals }, context);
  } finally {
    await context.close();
  }
}

try {
  const result = await main(process.argv.slice(2));
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} catch (error) {
  // A refusal of the product answers with its code, as the API does.
  const known = error instanceof CliError || error instanceof Refusal;
  const body = { error: { code: known ? error.code : 'internal_error', message: (error as Error).message } };
  process.stderr.write(`${JSON.stringify(body)}\n`);
  process.exitCode = error instanceof CliError ? error.exitCode : 1;
}
