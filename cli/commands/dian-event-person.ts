import { Company } from '../../db/companies/company.entity.ts';
import { findDianEventPerson, setDianEventPerson } from '../../db/fiscal/dian-event-person.repository.ts';
import { companyEm, systemEm } from '../../db/orm.ts';
import {
  DIAN_ID_TYPES,
  ID_NUMBER,
  PERSON_TEXT_MAX,
  type DianIdType,
  type RadianPerson,
} from '../../fiscal/radian-person.ts';
import { oneOf, optional, reference } from '../arguments.ts';
import type { Command, CommandInput } from '../command.ts';
import { CliError, notFound, usage } from '../errors.ts';

/** Each flag and the person's field it sets: all of them go together. */
const FLAGS = {
  'id-type': 'idType',
  'id-number': 'idNumber',
  'first-name': 'firstName',
  'family-name': 'familyName',
  'job-title': 'jobTitle',
  department: 'department',
} as const satisfies Record<string, keyof RadianPerson>;
type Flag = keyof typeof FLAGS;

/** The person the flags describe, null for `--clear`, or undefined when no flag asks for a change. */
function personFrom(input: CommandInput): RadianPerson | null | undefined {
  const flags = Object.keys(FLAGS) as Flag[];
  const named = flags.filter((flag) => optional(input, flag) !== undefined);
  if (input.values.clear === true) {
    if (named.length) throw usage('--clear goes alone');
    return null;
  }
  if (named.length === 0) return undefined;
  const missing = flags.filter((flag) => !optional(input, flag));
  if (missing.length)
    throw usage(`The person needs every field: ${missing.map((flag) => `--${flag}`).join(', ')} missing`);
  const person = Object.fromEntries(flags.map((flag) => [FLAGS[flag], optional(input, flag)!])) as Record<
    keyof RadianPerson,
    string
  >;
  for (const flag of ['first-name', 'family-name', 'job-title', 'department'] as const) {
    if (person[FLAGS[flag]].length > PERSON_TEXT_MAX)
      throw usage(`--${flag} must be at most ${PERSON_TEXT_MAX} characters`);
  }
  if (!ID_NUMBER.test(person.idNumber))
    throw usage('--id-number must be 3 to 20 letters or digits, without dots or dashes');
  return {
    ...person,
    idType: oneOf(person.idType, Object.keys(DIAN_ID_TYPES) as DianIdType[], 'id-type'),
    idNumber: person.idNumber.toUpperCase(),
  };
}

const present = (company: Company, person: RadianPerson | null) => ({
  company: company.id,
  event_person: person && {
    id_type: person.idType,
    id_type_name: DIAN_ID_TYPES[person.idType],
    id_number: person.idNumber,
    first_name: person.firstName,
    family_name: person.familyName,
    job_title: person.jobTitle,
    department: person.department,
  },
});

/** Who receives for a Colombian company in RADIAN events 030 and 032: DIAN refuses those events without this person. */
export const dianEventPersonCommand: Command = {
  group: 'fiscal',
  action: 'event-person',
  usage:
    'fiscal event-person --company REF [--id-type CODE --id-number N --first-name NAME --family-name NAME --job-title TITLE --department NAME | --clear]',
  options: {
    company: { type: 'string' },
    ...Object.fromEntries(Object.keys(FLAGS).map((flag) => [flag, { type: 'string' as const }])),
    clear: { type: 'boolean' },
  },
  async run(input, context) {
    const orm = await context.orm();
    const ref = reference(input, 'company');
    const company = await systemEm(orm).findOne(Company, { id: ref });
    if (!company) throw notFound('company', ref);
    const person = personFrom(input);
    const em = companyEm(orm, company.id);
    // Without flags the command shows what is registered.
    if (person === undefined) return present(company, await findDianEventPerson(em));
    if (company.country !== 'COL')
      throw new CliError('country_mismatch', 'The event person is for Colombian companies (DIAN RADIAN events)');
    return present(company, await setDianEventPerson(em, company, person));
  },
};
