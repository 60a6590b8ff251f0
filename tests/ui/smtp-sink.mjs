// A mail sink for the UI suite's sign-up views: an SMTP server on 127.0.0.1:0 that keeps
// every message hearth sends (`serve --smtp-url smtp://127.0.0.1:PORT`), with
// quoted-printable soft breaks undone. RFC 5321's minimal dialogue: EHLO/HELO, MAIL,
// RCPT, DATA, RSET, NOOP, QUIT.
import net from 'node:net';

export async function smtpSink() {
  const mails = [];
  let wake = [];
  const server = net.createServer((sock) => {
    sock.setEncoding('utf8');
    sock.on('error', () => {});
    let buf = '';
    let data = null;
    let to = [];
    const reply = (line) => sock.write(`${line}\r\n`);
    const handle = (line) => {
      if (data) {
        if (line !== '.') {
          data.push(line.startsWith('.') ? line.slice(1) : line);
          return;
        }
        mails.push({ to, text: data.join('\n').replace(/=\n/g, '').replace(/=3D/g, '=') });
        [data, to] = [null, []];
        wake.splice(0).forEach((w) => w());
        return reply('250 kept');
      }
      const verb = line.split(' ')[0].toUpperCase();
      if (verb === 'EHLO' || verb === 'HELO') return reply('250-sink\r\n250 8BITMIME');
      if (verb === 'RCPT') {
        to.push(line.slice(line.indexOf(':') + 1).trim().replace(/[<>]/g, ''));
        return reply('250 OK');
      }
      if (verb === 'DATA') {
        data = [];
        return reply('354 go on');
      }
      if (verb === 'QUIT') return sock.end('221 bye\r\n');
      return reply(['MAIL', 'RSET', 'NOOP'].includes(verb) ? '250 OK' : '502 not here');
    };
    reply('220 sink ESMTP');
    sock.on('data', (chunk) => {
      buf += chunk;
      for (let i = buf.indexOf('\r\n'); i >= 0; i = buf.indexOf('\r\n')) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 2);
        handle(line);
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  // the first `n` mails, once they are there (at most `ms`)
  const waitFor = async (n, ms) => {
    const deadline = Date.now() + ms;
    while (mails.length < n) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${n} mails did not arrive in ${ms} ms (${mails.length} did)`);
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, left);
        wake.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return mails.slice(0, n);
  };
  return { url: `smtp://127.0.0.1:${server.address().port}`, mails, waitFor, close: () => server.close() };
}

// The code a mail of hearth's carries: the line after "enter this code".
export function codeIn(mail) {
  const lines = mail.text.split('\n');
  const at = lines.findIndex((l) => l.includes('enter this code'));
  return at < 0 ? null : lines.slice(at + 1).find((l) => l.trim())?.trim() ?? null;
}
