// The check-in sheet reader (no database).
import t from 'tap';
import { parseCsv, readCheckins, CHECKIN_MAX_ROWS } from '../csv.js';

t.test('parseCsv', async (t) => {
  t.same(parseCsv('a,b\r\n"x, y","say ""hi"""\n').rows, [['a', 'b'], ['x, y', 'say "hi"']]);
  t.same(parseCsv('\ufeffa\n\n\nb').rows, [['a'], ['b']], 'BOM and blank lines');
  t.same(parseCsv('a\n"multi\nline"\nc').lines, [1, 2, 4], 'line numbers count newlines inside quotes');
  t.same(parseCsv('a,,c').rows, [['a', '', 'c']]);
  t.throws(() => parseCsv('a\n"open'), { message: 'a quoted field is never closed', line: 2 });
  t.throws(() => parseCsv('a\r\n\r\n"open\r\nmore'), { message: 'a quoted field is never closed', line: 3 }, 'the line where it opens');
  t.throws(() => parseCsv('a\nx"y"'), { message: /a quote in the middle of a field/, line: 2 });
  t.throws(() => parseCsv('a\n"x"y'), { message: 'text after a closing quote' });
  t.same(parseCsv('h\r\n"q\r\nr"\r\nz').lines, [1, 2, 4], 'a CRLF inside quotes is one line');
  t.same(parseCsv('h\nx\r\ny\rz').rows, [['h'], ['x'], ['y'], ['z']], 'LF, CRLF and CR mixed');
  t.same(parseCsv(' "x, y" , z \n \t \nw').rows, [['x, y', 'z'], ['w']], 'blanks around quotes; a line of blanks is skipped');
  t.same(parseCsv('a,b\nc').rows, [['a', 'b'], ['c']], 'rows of other lengths are kept (readCheckins reports them)');
});

t.test('readCheckins', async (t) => {
  const ok = readCheckins('E-mail,Discord ID,points\nA@B.org,,\n,130000000000000001,7', 5);
  t.same(ok.problems, []);
  t.same(ok.rows, [
    { row: 2, email: 'a@b.org', chatUserId: null, studentId: null, points: 5 },
    { row: 3, email: null, chatUserId: '130000000000000001', studentId: null, points: 7 },
  ]);
  t.same(readCheckins('email,email\na,b', 1).problems, [{ row: 1, column: 'email', message: 'the column email appears twice' }]);
  t.same(readCheckins('', 1).problems, [{ row: 1, message: 'the file is empty; the first line must name the columns (email, chat_user_id, student_id, points)' }]);
  const big = `email\n${Array.from({ length: CHECKIN_MAX_ROWS + 1 }, (_, i) => `m${i}@x.org`).join('\n')}`;
  t.match(readCheckins(big, 1).problems, [{ row: 1, message: /at most 5000/ }]);
  t.same(readCheckins('email\nx@y.org', 1).rows.length, 1);
});
