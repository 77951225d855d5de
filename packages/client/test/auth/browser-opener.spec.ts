import { openerCommand } from '../../src/auth/browser-opener';

const URL_WITH_QUERY = new URL('https://auth.example.com/authorize?client_id=c&state=s&scope=a%20b');

describe('openerCommand', () => {
  it('is xdg-open on Linux', () => {
    expect(openerCommand(URL_WITH_QUERY, 'linux')).toEqual({
      command: 'xdg-open',
      args: [URL_WITH_QUERY.href],
    });
  });

  it('is open on macOS', () => {
    expect(openerCommand(URL_WITH_QUERY, 'darwin')).toEqual({ command: 'open', args: [URL_WITH_QUERY.href] });
  });

  it('is cmd /c start "" "<url>" on Windows, verbatim so the & of the query stays inside the quotes', () => {
    expect(openerCommand(URL_WITH_QUERY, 'win32')).toEqual({
      command: 'cmd',
      args: ['/c', 'start', '""', `"${URL_WITH_QUERY.href}"`],
      windowsVerbatimArguments: true,
    });
  });
});
