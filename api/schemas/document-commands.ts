import { z } from 'zod';
import { trimmedString } from '../../platform/schema-atoms.ts';

export const TagsRequest = z.object({
  tags_text: z
    .array(trimmedString().min(1, 'Must not be empty').max(100, 'Must be at most 100 characters'))
    .min(1, 'At least one tag is required')
    .max(50, 'At most 50 tags per request')
    .describe('Tag names: unknown ones are created for the company'),
});

export const MessageResponse = z.strictObject({ message: z.string() });
export const EmptyResponse = z.strictObject({}).describe('An empty object');

const ATTACHMENT_EXTENSION = /\.(pdf|jpe?g|png)$/i;

export const NoteRequest = z
  .object({
    comment: z.string().max(5000, 'Must be at most 5000 characters').optional(),
    file_path: z
      .url({ protocol: /^https?$/, message: 'Must be a public http(s) URL' })
      .max(2048, 'Must be at most 2048 characters')
      .refine(
        (value) => URL.canParse(value) && ATTACHMENT_EXTENSION.test(new URL(value).pathname),
        'Must point to a pdf, jpg, jpeg or png file',
      )
      .optional()
      .describe(
        [
          'A pdf, jpg, jpeg or png at a public address (IPv4 or IPv6), or in a network the operator allows:',
          'private, loopback, link-local and other special-purpose addresses, `localhost` and single-label names are refused, naming the rule.',
          'Stored as given, never fetched',
        ].join(' '),
      ),
    file_name: trimmedString().min(1).max(255, 'Must be at most 255 characters').optional(),
  })
  .superRefine((note, context) => {
    if (note.file_name && !note.file_path)
      context.addIssue({ code: 'custom', path: ['file_path'], message: 'Required when file_name is given' });
    if (!note.comment?.trim() && !note.file_path)
      context.addIssue({ code: 'custom', path: ['comment'], message: 'Give a comment, a file_path, or both' });
  })
  .describe(
    'As JSON. As multipart/form-data instead: the attachment in `file` (pdf, jpg, jpeg or png, at most 5 MB, checked by content) and an optional `comment`.',
  );
