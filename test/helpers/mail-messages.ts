/** A message whose one attachment is named with RFC 2231 percent-encoding, as a mailer writes it. */
export const rfc2231Message = (encodedName: string, data: string | Uint8Array): string =>
  [
    'From: facturacion@proveedor.example.co',
    'To: facturas@empresa.example.co',
    'Subject: Factura',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="limite"',
    '',
    '--limite',
    'Content-Type: application/xml',
    `Content-Disposition: attachment; filename*=utf-8''${encodedName}`,
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from(data).toString('base64'),
    '--limite--',
    '',
  ].join('\r\n');
