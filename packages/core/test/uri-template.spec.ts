import { UriTemplate, UriTemplateError, type UriVariables } from '../src/resources/uri-template';

// The variables of RFC 6570 section 3.2, less the associative array `keys` (UriVariables has no maps).
const rfc: UriVariables = {
  count: ['one', 'two', 'three'],
  dom: ['example', 'com'],
  dub: 'me/too',
  hello: 'Hello World!',
  half: '50%',
  var: 'value',
  who: 'fred',
  base: 'http://example.com/home/',
  path: '/foo/bar',
  list: ['red', 'green', 'blue'],
  v: '6',
  x: '1024',
  y: '768',
  empty: '',
  empty_list: [],
};

const expand = (template: string, variables: UriVariables = rfc) =>
  new UriTemplate(template).expand(variables);

describe('a parsed template', () => {
  it('lists variable names once each, in order of first appearance', () => {
    const template = new UriTemplate('repo://{owner}/{repo}/issues{?state,labels,owner}{#repo}');
    expect(template.variableNames).toEqual(['owner', 'repo', 'state', 'labels']);
    expect(template.isStatic).toBe(false);
  });

  it('is static when it has no expressions', () => {
    const template = new UriTemplate('notes://index');
    expect(template.isStatic).toBe(true);
    expect(template.variableNames).toEqual([]);
    expect(template.expand({ id: 'ignored' })).toBe('notes://index');
  });

  it('keeps its text for toString and template', () => {
    const template = new UriTemplate('users{/id*}');
    expect(template.template).toBe('users{/id*}');
    expect(String(template)).toBe('users{/id*}');
    expect(`${template}`).toBe('users{/id*}');
  });
});

describe('expand, RFC 6570 section 1.2 levels', () => {
  it.each([
    // Level 1
    ['{var}', 'value'],
    ['{hello}', 'Hello%20World%21'],
    // Level 2
    ['{+var}', 'value'],
    ['{+hello}', 'Hello%20World!'],
    ['{+path}/here', '/foo/bar/here'],
    ['here?ref={+path}', 'here?ref=/foo/bar'],
    ['X{#var}', 'X#value'],
    ['X{#hello}', 'X#Hello%20World!'],
    // Level 3
    ['map?{x,y}', 'map?1024,768'],
    ['{x,hello,y}', '1024,Hello%20World%21,768'],
    ['{+x,hello,y}', '1024,Hello%20World!,768'],
    ['{+path,x}/here', '/foo/bar,1024/here'],
    ['{#x,hello,y}', '#1024,Hello%20World!,768'],
    ['{#path,x}/here', '#/foo/bar,1024/here'],
    ['X{.var}', 'X.value'],
    ['X{.x,y}', 'X.1024.768'],
    ['{/var}', '/value'],
    ['{/var,x}/here', '/value/1024/here'],
    ['{;x,y}', ';x=1024;y=768'],
    ['{;x,y,empty}', ';x=1024;y=768;empty'],
    ['{?x,y}', '?x=1024&y=768'],
    ['{?x,y,empty}', '?x=1024&y=768&empty='],
    ['?fixed=yes{&x}', '?fixed=yes&x=1024'],
    ['{&x,y,empty}', '&x=1024&y=768&empty='],
    // Level 4
    ['{var:3}', 'val'],
    ['{var:30}', 'value'],
    ['{list}', 'red,green,blue'],
    ['{list*}', 'red,green,blue'],
    ['{+path:6}/here', '/foo/b/here'],
    ['{+list}', 'red,green,blue'],
    ['{+list*}', 'red,green,blue'],
    ['{#path:6}/here', '#/foo/b/here'],
    ['{#list}', '#red,green,blue'],
    ['{#list*}', '#red,green,blue'],
    ['X{.var:3}', 'X.val'],
    ['X{.list}', 'X.red,green,blue'],
    ['X{.list*}', 'X.red.green.blue'],
    ['{/var:1,var}', '/v/value'],
    ['{/list}', '/red,green,blue'],
    ['{/list*}', '/red/green/blue'],
    ['{/list*,path:4}', '/red/green/blue/%2Ffoo'],
    ['{;hello:5}', ';hello=Hello'],
    ['{;list}', ';list=red,green,blue'],
    ['{;list*}', ';list=red;list=green;list=blue'],
    ['{?var:3}', '?var=val'],
    ['{?list}', '?list=red,green,blue'],
    ['{?list*}', '?list=red&list=green&list=blue'],
    ['{&var:3}', '&var=val'],
    ['{&list}', '&list=red,green,blue'],
    ['{&list*}', '&list=red&list=green&list=blue'],
  ])('%s expands to %s', (template, expected) => {
    expect(expand(template)).toBe(expected);
  });
});

describe('expand, RFC 6570 section 3.2 operators', () => {
  it.each([
    // 3.2.1 variable expansion
    ['{count}', 'one,two,three'],
    ['{count*}', 'one,two,three'],
    ['{/count}', '/one,two,three'],
    ['{/count*}', '/one/two/three'],
    ['{;count}', ';count=one,two,three'],
    ['{;count*}', ';count=one;count=two;count=three'],
    ['{?count}', '?count=one,two,three'],
    ['{?count*}', '?count=one&count=two&count=three'],
    ['{&count*}', '&count=one&count=two&count=three'],
    // 3.2.2 simple string expansion
    ['{half}', '50%25'],
    ['O{empty}X', 'OX'],
    ['O{undef}X', 'OX'],
    ['{x,y}', '1024,768'],
    ['?{x,empty}', '?1024,'],
    ['?{x,undef}', '?1024'],
    ['?{undef,y}', '?768'],
    // 3.2.3 reserved expansion
    ['{+half}', '50%25'],
    ['{base}index', 'http%3A%2F%2Fexample.com%2Fhome%2Findex'],
    ['{+base}index', 'http://example.com/home/index'],
    ['O{+empty}X', 'OX'],
    ['O{+undef}X', 'OX'],
    // 3.2.4 fragment expansion
    ['{#var}', '#value'],
    ['{#half}', '#50%25'],
    ['foo{#empty}', 'foo#'],
    ['foo{#undef}', 'foo'],
    // 3.2.5 label expansion with dot-prefix
    ['{.who}', '.fred'],
    ['{.who,who}', '.fred.fred'],
    ['{.half,who}', '.50%25.fred'],
    ['www{.dom*}', 'www.example.com'],
    ['X{.empty}', 'X.'],
    ['X{.undef}', 'X'],
    // 3.2.6 path segment expansion
    ['{/who}', '/fred'],
    ['{/who,who}', '/fred/fred'],
    ['{/half,who}', '/50%25/fred'],
    ['{/who,dub}', '/fred/me%2Ftoo'],
    ['{/var,empty}', '/value/'],
    ['{/var,undef}', '/value'],
    // 3.2.7 path-style parameter expansion
    ['{;who}', ';who=fred'],
    ['{;half}', ';half=50%25'],
    ['{;empty}', ';empty'],
    ['{;v,empty,who}', ';v=6;empty;who=fred'],
    ['{;v,bar,who}', ';v=6;who=fred'],
    ['{;x,y,undef}', ';x=1024;y=768'],
    // 3.2.8 form-style query expansion
    ['{?who}', '?who=fred'],
    ['{?half}', '?half=50%25'],
    ['{?x,y,undef}', '?x=1024&y=768'],
    // 3.2.9 form-style query continuation
    ['{&who}', '&who=fred'],
    ['{&half}', '&half=50%25'],
  ])('%s expands to %s', (template, expected) => {
    expect(expand(template)).toBe(expected);
  });

  it.each([
    ['{empty_list}', ''],
    ['X{.empty_list}', 'X'],
    ['X{/empty_list*}', 'X'],
    ['X{;empty_list}', 'X'],
    ['X{?empty_list}', 'X'],
    ['X{?empty_list*}', 'X'],
    ['X{#empty_list}', 'X'],
  ])('treats an empty list as undefined: %s expands to %s', (template, expected) => {
    expect(expand(template)).toBe(expected);
  });
});

describe('expand, encoding', () => {
  const reserved = ":/?#[]@!$&'()*+,;=";

  it.each([
    ['{x}', reserved, '%3A%2F%3F%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D'],
    ['{+x}', reserved, reserved],
    ['{#x}', reserved, `#${reserved}`],
    ['{x}', '-._~AZaz09', '-._~AZaz09'],
    ['{x}', 'Hello Wörld', 'Hello%20W%C3%B6rld'],
    ['{+x}', 'ü/ß', '%C3%BC/%C3%9F'],
    ['{x}', '😀', '%F0%9F%98%80'],
    ['{x}', 'a\uD800b', 'a%EF%BF%BDb'],
    ['{x}', 'a%20b', 'a%2520b'],
    ['{+x}', 'a%20b%zz%', 'a%20b%25zz%25'],
    ['{#x}', '<"> {|}', '#%3C%22%3E%20%7B%7C%7D'],
    ['{x:2}', 'é😀x', '%C3%A9%F0%9F%98%80'],
    ['{+x:3}', '/a/b', '/a/'],
    ['{?x:1}', '', '?x='],
  ])('%s with %j expands to %s', (template, x, expected) => {
    expect(expand(template, { x })).toBe(expected);
  });

  it('copies literal URI characters and percent-encodes the rest (RFC 6570 section 3.1)', () => {
    expect(expand('notes://café/a b/%C3%A9/100%/{x}', { x: '1' })).toBe(
      'notes://caf%C3%A9/a%20b/%C3%A9/100%25/1',
    );
  });

  it('reads only own properties, so prototype names are undefined unless given', () => {
    expect(expand('x{?constructor,toString,__proto__}', {})).toBe('x');
    expect(expand('x{?constructor,__proto__}', { ['__proto__']: 'p', constructor: 'c' })).toBe(
      'x?constructor=c&__proto__=p',
    );
  });

  it('throws when a prefix meets a list, which RFC 6570 section 2.4.1 does not define', () => {
    expect(() => expand('tags://{list:3}')).toThrow(
      new UriTemplateError(
        'Cannot expand URI template "tags://{list:3}": variable "list" is a list, and the prefix ":3" ' +
          'applies to strings only (RFC 6570 section 2.4.1)',
        { template: 'tags://{list:3}' },
      ),
    );
    expect(() => expand('tags://{list:3}')).toThrow(UriTemplateError);
  });
});

describe('match', () => {
  it.each<[string, string, UriVariables | null]>([
    // simple
    ['notes://{id}', 'notes://abc', { id: 'abc' }],
    ['notes://{id}', 'notes://', null],
    ['notes://{id}', 'notes://a/b', null],
    ['notes://{id}', 'notes://a?b', null],
    ['notes://{id}', 'notes://a#b', null],
    ['notes://{id}', 'notes://a%2Fb%3F%23', { id: 'a/b?#' }],
    ['notes://{id}', 'notes://hello world', { id: 'hello world' }],
    ['notes://{id}', 'notes://a,b', { id: 'a,b' }],
    ['notes://{id}', 'notes://a+b', { id: 'a+b' }],
    ['notes://{id}', 'notes://%c3%a9', { id: 'é' }],
    ['notes://{id}', 'Notes://abc', null],
    ['notes://{id}', 'xnotes://abc', null],
    ['notes://{id}', 'notes://%zz', null],
    ['notes://{id}', 'notes://%C3', null],
    ['notes://{id}', 'notes://%C0%80', null],
    ['notes://{id}', 'notes://100%', null],
    // static
    ['notes://index', 'notes://index', {}],
    ['notes://index', 'notes://index2', null],
    ['notes://index', 'notes://inde', null],
    ['notes://café/{x}', 'notes://caf%C3%A9/1', { x: '1' }],
    // reserved
    ['file:///{+path}', 'file:///docs/a b/c.txt', { path: 'docs/a b/c.txt' }],
    ['file:///{+path}', 'file:///', null],
    ['file:///{+path}', 'file:///a?b', null],
    ['file:///{+path}', 'file:///a#b', null],
    ['file:///{+path}', 'file:///a%3Fb', { path: 'a?b' }],
    // query: any order, optional, strict about names
    [
      'repo://{owner}/{repo}/issues{?state,labels}',
      'repo://acme/web/issues?labels=bug,ui&state=open',
      { owner: 'acme', repo: 'web', state: 'open', labels: 'bug,ui' },
    ],
    ['repo://{owner}/{repo}/issues{?state,labels}', 'repo://a/b/issues', { owner: 'a', repo: 'b' }],
    [
      'repo://{owner}/{repo}/issues{?state,labels}',
      'repo://a/b/issues?state=',
      { owner: 'a', repo: 'b', state: '' },
    ],
    [
      'repo://{owner}/{repo}/issues{?state,labels}',
      'repo://a/b/issues?state',
      { owner: 'a', repo: 'b', state: '' },
    ],
    ['repo://{owner}/{repo}/issues{?state,labels}', 'repo://a/b/issues?sort=new', null],
    ['repo://{owner}/{repo}/issues{?state,labels}', 'repo://a/b/issues?state=open&sort=new', null],
    ['repo://{owner}/{repo}/issues{?state,labels}', 'repo://a/b/issues?state=a&state=b', null],
    ['repo://{owner}/{repo}/issues{?state,labels}', 'repo://a/b/issues?', null],
    ['repo://{owner}/{repo}/issues{?state,labels}', 'repo://a/b/issues?state=a&&labels=b', null],
    ['repo://{owner}/{repo}/issues{?state,labels}', 'repo://a/b/issues&state=open', null],
    ['repo://{owner}/{repo}/issues{?state,labels}', 'repo://a/b/issues/x', null],
    ['search{?q,limit}', 'search?limit=5&q=x', { q: 'x', limit: '5' }],
    ['search{?q,limit}', 'search?q=a+b', { q: 'a+b' }],
    ['search{?q,limit}', 'search?q=a%2Bb%26c%3Dd', { q: 'a+b&c=d' }],
    ['search{?q,limit}', 'search?q=1=2?3', { q: '1=2?3' }],
    ['search{?q,limit}', 'search?q=%zz', null],
    ['search{?q}{&limit}', 'search?limit=5&q=x', { q: 'x', limit: '5' }],
    ['search{?q}{&limit}', 'search&limit=5', { limit: '5' }],
    ['search?fixed=yes{&x}', 'search?fixed=yes&x=1', { x: '1' }],
    ['search?fixed=yes{&x}', 'search?fixed=yes', {}],
    ['search?fixed=yes{&x}', 'search?x=1&fixed=yes', null],
    ['search{?q:3}', 'search?q=abc', { q: 'abc' }],
    ['search{?q:3}', 'search?q=abcd', null],
    ['search{?tag*}', 'search?tag=a&tag=b', { tag: ['a', 'b'] }],
    ['search{?tag*}', 'search?tag=a', { tag: ['a'] }],
    ['search{?tag*}', 'search?tag', { tag: [''] }],
    // path segments
    ['weather://{city}/forecast{/days}', 'weather://paris/forecast/3', { city: 'paris', days: '3' }],
    ['weather://{city}/forecast{/days}', 'weather://paris/forecast', { city: 'paris' }],
    ['weather://{city}/forecast{/days}', 'weather://paris/forecast/', { city: 'paris', days: '' }],
    ['weather://{city}/forecast{/days}', 'weather://paris/forecast/3/4', null],
    ['users{/id*}', 'users', {}],
    ['users{/id*}', 'users/7', { id: ['7'] }],
    ['users{/id*}', 'users/7/posts/a%2Fb', { id: ['7', 'posts', 'a/b'] }],
    ['users{/id*}', 'users/', { id: [''] }],
    ['users{/id*}', 'usersx', null],
    ['{/list}', '/red,green,blue', { list: 'red,green,blue' }],
    ['{/a,b}', '/1/2', { a: '1', b: '2' }],
    ['{/a,b}', '/1', { a: '1' }],
    ['{/a}{/b}', '/1/2', { a: '1', b: '2' }],
    ['{/a}/x', '/x', {}],
    ['{/a}/x', '/y/x', { a: 'y' }],
    // labels
    ['X{.list*}', 'X.red.green', { list: ['red', 'green'] }],
    ['X{.var}', 'X.tar.gz', { var: 'tar.gz' }],
    ['X{.a,b}', 'X.tar.gz', { a: 'tar', b: 'gz' }],
    ['users/{id}{.format}', 'users/42.json', { id: '42', format: 'json' }],
    ['users/{id}{.format}', 'users/42', { id: '42' }],
    // fragment
    ['doc://{id}{#section}', 'doc://guide#intro', { id: 'guide', section: 'intro' }],
    ['doc://{id}{#section}', 'doc://guide', { id: 'guide' }],
    ['doc://{id}{#section}', 'doc://guide#', { id: 'guide', section: '' }],
    ['doc://{id}{#section}', 'doc://guide#a/b?c#d', { id: 'guide', section: 'a/b?c#d' }],
    ['doc://{id}{#a,b}', 'doc://g#1,2', { id: 'g', a: '1', b: '2' }],
    // path-style parameters
    ['matrix://grid{;params*}', 'matrix://grid;params=a;params=b%20c', { params: ['a', 'b c'] }],
    ['matrix://grid{;params*}', 'matrix://grid', {}],
    ['matrix://grid{;params*}', 'matrix://grid;params', { params: [''] }],
    ['matrix://grid{;params*}', 'matrix://grid;other=1', null],
    ['{;x,y}', ';y=2;x=1', { x: '1', y: '2' }],
    ['{;x,y}', ';x=1;x=2', null],
    ['{;x,y}', ';x;y=', { x: '', y: '' }],
    ['{;x,y}', ';x=1/2', null],
    // lists and several variables
    ['colors://{list}', 'colors://red,green', { list: 'red,green' }],
    ['colors://{list*}', 'colors://red,green', { list: ['red', 'green'] }],
    ['colors://{list*}', 'colors://red', { list: ['red'] }],
    ['pair://{x,y}', 'pair://1,2', { x: '1', y: '2' }],
    ['pair://{x,y}', 'pair://1', { x: '1' }],
    ['pair://{x,y}', 'pair://1,', { x: '1', y: '' }],
    ['pair://{x,y}', 'pair://1,2,3', null],
    // prefixes count characters, a %-escaped UTF-8 sequence as one
    ['tags://{tag:3}', 'tags://abc', { tag: 'abc' }],
    ['tags://{tag:3}', 'tags://abcd', null],
    ['tags://{tag:3}', 'tags://%C3%A9%F0%9F%98%80%41', { tag: 'é😀A' }],
    ['tags://{tag:3}', 'tags://é😀A', { tag: 'é😀A' }],
    ['tags://{tag:3}', 'tags://%C3%A9%C3%A9%C3%A9%C3%A9', null],
    ['tags://{tag:3}', 'tags://', null],
    // one variable in several places
    ['mirror://{a}/{a}', 'mirror://x/x', { a: 'x' }],
    ['mirror://{a}/{a}', 'mirror://x/y', null],
    ['{/var:1,var}', '/v/value', { var: 'value' }],
    ['{/var:1,var}', '/x/value', null],
    ['{/list*}{?list}', '/a/b?list=a,b', { list: ['a', 'b'] }],
    ['{/list*}{?list}', '/a/b?list=a', null],
    // a value ends at the first occurrence of the literal after it
    ['{+path}/here', '/a/b/here', { path: '/a/b' }],
    ['{+path}/here', '/a/here/b/here', null],
    ['files://{name}.{ext}', 'files://a.b.c', { name: 'a', ext: 'b.c' }],
    ['notes://{id}.json', 'notes://v1.2.json', { id: 'v1.2' }],
    ['date://{y}-{m}-{d}', 'date://2024-01-05', { y: '2024', m: '01', d: '05' }],
    ['date://{y}-{m}-{d}', 'date://2024-01', null],
  ])('%s against %s', (template, uri, expected) => {
    expect(new UriTemplate(template).match(uri)).toStrictEqual(expected);
  });

  it('returns a variable named __proto__ as an ordinary own property', () => {
    const variables = new UriTemplate('p://{__proto__}').match('p://x');
    expect(variables === null ? null : Object.entries(variables)).toEqual([['__proto__', 'x']]);
    expect(Object.getPrototypeOf(variables)).toBe(Object.prototype);
  });

  it('returns a fresh object each time', () => {
    const template = new UriTemplate('notes://index');
    const first = template.match('notes://index');
    expect(first).toEqual({});
    expect(template.match('notes://index')).not.toBe(first);
  });
});

describe('match on long adversarial URIs', () => {
  // Each of these takes exponential or high-polynomial time in a regex that backtracks between values.
  it('rejects a run of separators that every variable could end at', () => {
    expect(new UriTemplate('date://{y}-{m}-{d}').match(`date://${'-'.repeat(50_000)}#`)).toBeNull();
    expect(new UriTemplate('{+a}/{+b}/{+c}').match(`${'/'.repeat(50_000)}?`)).toBeNull();
    expect(new UriTemplate(`{a}${'-{b}'.repeat(30)}`).match(`${'ab-'.repeat(20_000)}#`)).toBeNull();
    expect(new UriTemplate('{+path}/here').match(`${'/here'.repeat(20_000)}x`)).toBeNull();
  });

  it('rejects many optional expressions that could each take or skip a segment', () => {
    // 32 optional `{/x}`: a backtracking matcher tries all 2^32 ways to skip some of them.
    const names = [...'abcdefghijklmnopqrstuvwxyzABCDEF'];
    const template = new UriTemplate(`p:${names.map((name) => `{/${name}}`).join('')}`);
    expect(template.variableNames).toHaveLength(32);
    expect(template.match(`p:${'/x'.repeat(40)}#`)).toBeNull();
    expect(template.match(`p:${'/x'.repeat(33)}`)).toBeNull();
    expect(template.match('p:/1/2')).toStrictEqual({ a: '1', b: '2' });
  });

  it('matches long values in full', () => {
    expect(new UriTemplate('notes://{id}').match(`notes://${'%41'.repeat(100_000)}`)).toStrictEqual({
      id: 'A'.repeat(100_000),
    });
    expect(
      new UriTemplate('date://{y}-{m}-{d}').match(`date://2024-01-${'x-'.repeat(50_000)}`),
    ).toStrictEqual({
      y: '2024',
      m: '01',
      d: 'x-'.repeat(50_000),
    });
    expect(new UriTemplate('file:///{+path}').match(`file:///${'a/'.repeat(50_000)}`)).toStrictEqual({
      path: 'a/'.repeat(50_000),
    });
  });
});

describe('expand then match', () => {
  it.each<[string, UriVariables]>([
    ['notes://{id}', { id: 'a b/c?d#e%f,g' }],
    ['notes://{id}', { id: 'ünïcödé 😀' }],
    ['file:///{+path}', { path: 'docs/a b/ü.md' }],
    [
      'repo://{owner}/{repo}/issues{?state,labels}',
      { owner: 'acme', repo: 'web', state: 'open', labels: 'bug,ui' },
    ],
    ['repo://{owner}/{repo}/issues{?state,labels}', { owner: 'acme', repo: 'web', labels: 'a&b=c' }],
    ['weather://{city}/forecast{/days}', { city: 'São Paulo', days: '3' }],
    ['weather://{city}/forecast{/days}', { city: 'Paris' }],
    ['users{/id*}', { id: ['7', 'posts', 'x/y'] }],
    ['search{?q,limit}', { q: 'a&b=c d', limit: '10' }],
    ['search{?q,limit}', {}],
    ['doc://{id}{#section}', { id: 'guide', section: 'a/b c' }],
    ['matrix://grid{;params*}', { params: ['a', 'b c', ''] }],
    ['{;x,y,empty}', { x: '1024', y: '768', empty: '' }],
    ['tags://{tag:3}', { tag: 'abc' }],
    ['tags://{tag:2}', { tag: 'é😀' }],
    ['{/var:1,var}', { var: 'value' }],
    ['X{.list*}', { list: ['red', 'green'] }],
    ['{?list*}', { list: ['a', 'b'] }],
    ['{?list*}', { list: ['only'] }],
    ['search?fixed=yes{&x,y}', { x: '1', y: '2' }],
    ['pair://{x,y}', { x: 'a', y: 'b' }],
    ['doc://p{#a,b}', { a: '1', b: '2' }],
    ['files://{name}.{ext}', { name: 'report', ext: 'tar.gz' }],
    ['log://{date}-{level}', { date: '2024', level: 'warn' }],
    ['api://v1{/resource}{.format}{?fields*}', { resource: 'users', format: 'json', fields: ['id', 'name'] }],
    ['api://v1{/resource}{.format}{?fields*}', { format: 'json' }],
    ['{+base}index', { base: 'http://example.com/home/' }],
    ['p://{__proto__}/{constructor}', { ['__proto__']: 'a', constructor: 'b' }],
  ])('%s with %j', (source, variables) => {
    const template = new UriTemplate(source);
    expect(template.match(template.expand(variables))).toStrictEqual(variables);
  });
});

describe('compareSpecificity', () => {
  const sorted = (...sources: string[]) =>
    sources
      .map((source) => new UriTemplate(source))
      .sort(UriTemplate.compareSpecificity)
      .map(String);

  it('puts a static template before a template that also matches its URI', () => {
    expect(sorted('notes://{id}', 'notes://index')).toEqual(['notes://index', 'notes://{id}']);
    expect(sorted('notes://index', 'notes://{id}')).toEqual(['notes://index', 'notes://{id}']);
  });

  it('puts more literal characters first', () => {
    expect(sorted('file:///{+path}', 'file:///docs/{name}')).toEqual([
      'file:///docs/{name}',
      'file:///{+path}',
    ]);
  });

  it('breaks ties by fewer variables, then fewer reserved expressions, then the text', () => {
    expect(sorted('a://{x}{/y}', 'a://{x}')).toEqual(['a://{x}', 'a://{x}{/y}']);
    expect(sorted('f://{+x}', 'f://{x}')).toEqual(['f://{x}', 'f://{+x}']);
    expect(sorted('a://{y}', 'a://{x}')).toEqual(['a://{x}', 'a://{y}']);
  });

  it('is antisymmetric and zero only for the same text', () => {
    const a = new UriTemplate('notes://{id}');
    const b = new UriTemplate('notes://index');
    expect(Math.sign(UriTemplate.compareSpecificity(a, b))).toBe(1);
    expect(Math.sign(UriTemplate.compareSpecificity(b, a))).toBe(-1);
    expect(UriTemplate.compareSpecificity(a, new UriTemplate('notes://{id}'))).toBe(0);
  });

  it('orders a realistic set by all four keys', () => {
    expect(
      sorted(
        'file:///{+path}',
        'notes://{id}',
        'notes://index',
        'notes://{id}/comments{?page}',
        'file:///docs/{name}',
      ),
    ).toEqual([
      'notes://{id}/comments{?page}', // 17 literal characters
      'notes://index', // 13, no variables
      'file:///docs/{name}', // 13, one variable
      'notes://{id}', // 8, one variable
      'file:///{+path}', // 8, one variable, reserved
    ]);
  });
});

describe('invalid templates', () => {
  const thrown = (template: string): UriTemplateError => {
    try {
      new UriTemplate(template);
    } catch (error) {
      if (error instanceof UriTemplateError) return error;
      throw error;
    }
    throw new Error(`${template} was accepted`);
  };

  it.each<[string, string, number]>([
    ['notes://{id', 'unclosed "{" at position 8', 8],
    ['notes://{a{b}', 'unclosed "{" at position 8', 8],
    ['{a}/{b', 'unclosed "{" at position 4', 4],
    ['notes://id}', 'unmatched "}" at position 10', 10],
    ['{a}}', 'unmatched "}" at position 3', 3],
    ['notes://{}', 'empty expression at position 8', 8],
    ['notes://{+}', 'empty expression at position 8', 8],
    ['notes://{?}', 'empty expression at position 8', 8],
    [
      'notes://{user-id}',
      'invalid variable name "user-id" at position 9; use letters, digits, "_", inner "." and %-escapes',
      9,
    ],
    [
      '{a,,b}',
      'invalid variable name "" at position 3; use letters, digits, "_", inner "." and %-escapes',
      3,
    ],
    ['{a,}', 'invalid variable name "" at position 3; use letters, digits, "_", inner "." and %-escapes', 3],
    [
      '{?a.}',
      'invalid variable name "a." at position 2; use letters, digits, "_", inner "." and %-escapes',
      2,
    ],
    [
      '{.a..b}',
      'invalid variable name "a..b" at position 2; use letters, digits, "_", inner "." and %-escapes',
      2,
    ],
    [
      '{ a}',
      'invalid variable name " a" at position 1; use letters, digits, "_", inner "." and %-escapes',
      1,
    ],
    [
      '{a%2}',
      'invalid variable name "a%2" at position 1; use letters, digits, "_", inner "." and %-escapes',
      1,
    ],
    [
      '{x:3,-y}',
      'invalid variable name "-y" at position 5; use letters, digits, "_", inner "." and %-escapes',
      5,
    ],
    ['{!x}', 'unknown operator "!" at position 1; use one of + # . / ; ? &', 1],
    ['a{=x}', 'unknown operator "=" at position 2; use one of + # . / ; ? &', 2],
    ['{,x}', 'unknown operator "," at position 1; use one of + # . / ; ? &', 1],
    ['{@x}', 'unknown operator "@" at position 1; use one of + # . / ; ? &', 1],
    ['{|x}', 'unknown operator "|" at position 1; use one of + # . / ; ? &', 1],
    ['{var:0}', 'bad prefix ":0" on variable "var" at position 4; use a length from 1 to 9999', 4],
    ['{var:10000}', 'bad prefix ":10000" on variable "var" at position 4; use a length from 1 to 9999', 4],
    ['{var:}', 'bad prefix ":" on variable "var" at position 4; use a length from 1 to 9999', 4],
    ['{var:01}', 'bad prefix ":01" on variable "var" at position 4; use a length from 1 to 9999', 4],
    ['{/a,var:x}', 'bad prefix ":x" on variable "var" at position 7; use a length from 1 to 9999', 7],
    [
      '{var:3*}',
      'bad prefix ":3*" on variable "var" at position 4; a variable takes a prefix or explode "*", not both',
      4,
    ],
    [
      '{var*:3}',
      'bad prefix ":3" on variable "var" at position 5; a variable takes a prefix or explode "*", not both',
      5,
    ],
    [
      '{a}{b}',
      'expression at position 3 directly follows another expression, so a URI cannot be split between them; ' +
        'put literal text in between',
      3,
    ],
    [
      'x{/a}{+b}',
      'expression at position 5 directly follows another expression, so a URI cannot be split between them; ' +
        'put literal text in between',
      5,
    ],
  ])('%s: %s', (template, problem, position) => {
    const error = thrown(template);
    expect(error.message).toBe(`Invalid URI template "${template}": ${problem}`);
    expect(error.name).toBe('UriTemplateError');
    expect(error.template).toBe(template);
    expect(error.position).toBe(position);
  });

  it('rejects a template over 1024 characters, quoting only its start', () => {
    const template = `notes://${'x'.repeat(1017)}`;
    expect(template).toHaveLength(1025);
    const error = thrown(template);
    expect(error.message).toBe(
      `Invalid URI template "notes://${'x'.repeat(56)}…": 1025 characters, over the limit of 1024; shorten it`,
    );
    expect(error.position).toBeUndefined();
    expect(new UriTemplate(`notes://${'x'.repeat(1016)}`).template).toHaveLength(1024);
  });

  it('rejects more than 32 variable references', () => {
    const names = Array.from({ length: 33 }, (_, i) => `v${i}`);
    expect(new UriTemplate(`{?${names.slice(0, 32).join(',')}}`).variableNames).toHaveLength(32);
    const template = `{?${names.join(',')}}`;
    const position = template.indexOf('v32');
    const error = thrown(template);
    expect(error.message).toBe(
      `Invalid URI template "${template.slice(0, 64)}…": too many variables at position ${position}; ` +
        'a template may reference at most 32',
    );
    expect(error.position).toBe(position);
  });

  it('accepts what RFC 6570 section 2.3 allows in names and section 2.1 in literals', () => {
    expect(new UriTemplate('{a.b_C9,%41x}').variableNames).toEqual(['a.b_C9', '%41x']);
    expect(new UriTemplate('{var:9999}').expand({ var: 'x' })).toBe('x');
  });
});
