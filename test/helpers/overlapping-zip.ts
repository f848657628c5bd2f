// A ZIP whose central directory lists 99 more entries (`copia-01.xml`, …) pointing at its one entry's data: what a
// reader that trusts the directory would inflate a hundred times. Python script: the archive of one entry is read from
// argv[1], the overlapping one written to stdout.
export const OVERLAPPING_ZIP_SCRIPT = String.raw`
import struct, sys
data = open(sys.argv[1], 'rb').read()
end = data.rfind(b'PK\x05\x06')
size, offset = struct.unpack_from('<II', data, end + 12)
record = data[offset:offset + size]
name_length = struct.unpack_from('<H', record, 28)[0]
records = [record]
for n in range(1, 100):
    name = ('copia-%02d.xml' % n).encode()
    records.append(record[:28] + struct.pack('<H', len(name)) + record[30:46] + name + record[46 + name_length:])
directory = b''.join(records)
tail = bytearray(data[end:])
struct.pack_into('<HHII', tail, 8, len(records), len(records), len(directory), offset)
sys.stdout.buffer.write(data[:offset] + directory + bytes(tail))`;
