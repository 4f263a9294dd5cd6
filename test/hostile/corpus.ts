// The hostile-input corpus: requests built to break a JSON API, each with the status it must get.
// Every case answers in the Error shape and changes nothing (checked by hostile-input.test.ts).

export interface HostileCase {
  name: string;
  method?: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH' | 'OPTIONS' | 'TRACE';
  url?: string;
  contentType?: string | null;
  body?: string;
  status: number;
  message?: RegExp;
}

const post = (name: string, body: string, status = 400, message?: RegExp): HostileCase => ({ name, method: 'POST', body, status, message });
const list = (query: string, status = 400, message?: RegExp): HostileCase => ({
  name: `GET /plants?${query}`,
  method: 'GET',
  url: `/plants?${query}`,
  status,
  message,
});
const remove = (id: string, status = 400): HostileCase => ({
  name: `DELETE /plants/${id}`,
  method: 'DELETE',
  url: `/plants/${id}`,
  status,
});
const nested = (depth: number, open: string, close: string) => open.repeat(depth) + close.repeat(depth);

const malformedJson: HostileCase[] = [
  post('empty body', ''),
  post('only whitespace', '   \n '),
  post('truncated object', '{"id":2,"name":"x"', 400, /not valid JSON/),
  post('truncated string', '{"id":2,"name":"x', 400, /not valid JSON/),
  post('truncated after key', '{"id"', 400, /not valid JSON/),
  post('truncated number', '{"id":-', 400, /not valid JSON/),
  post('trailing comma', '{"id":2,"name":"x",}', 400, /not valid JSON/),
  post('single quotes', "{'id':2,'name':'x'}", 400, /not valid JSON/),
  post('unquoted keys', '{id:2,name:"x"}', 400, /not valid JSON/),
  post('comment', '{"id":2,/* hi */"name":"x"}', 400, /not valid JSON/),
  post('trailing garbage', '{"id":2,"name":"x"}garbage', 400, /not valid JSON/),
  post('two documents', '{"id":2,"name":"x"}{"id":3,"name":"y"}', 400, /not valid JSON/),
  post('NaN', '{"id":NaN,"name":"x"}', 400, /not valid JSON/),
  post('Infinity', '{"id":Infinity,"name":"x"}', 400, /not valid JSON/),
  post('hex number', '{"id":0x10,"name":"x"}', 400, /not valid JSON/),
  post('leading zero', '{"id":01,"name":"x"}', 400, /not valid JSON/),
  post('leading plus', '{"id":+1,"name":"x"}', 400, /not valid JSON/),
  post('bare decimal point', '{"id":.5,"name":"x"}', 400, /not valid JSON/),
  post('digit separator', '{"id":1_000,"name":"x"}', 400, /not valid JSON/),
  post('bad escape', '{"id":2,"name":"\\x41"}', 400, /not valid JSON/),
  post('short unicode escape', '{"id":2,"name":"\\u12"}', 400, /not valid JSON/),
  post('raw newline in string', '{"id":2,"name":"a\nb"}', 400),
  post('raw NUL in string', '{"id":2,"name":"a\u0000b"}', 400),
  post('bare word', 'plant', 400, /not valid JSON/),
  post('deeply nested arrays', nested(8_000, '[', ']'), 400),
  post('deeply nested objects', nested(2_500, '{"a":', '}'), 400),
  post('deeply nested in a field', `{"id":2,"name":"x","tag":${nested(5_000, '[', ']')}}`, 400),
];

const wrongShape: HostileCase[] = [
  post('JSON null', 'null', 400, /body must be object/),
  post('JSON array', '[{"id":2,"name":"x"}]', 400, /body must be object/),
  post('JSON string', '"plant"', 400, /body must be object/),
  post('JSON number', '42', 400, /body must be object/),
  post('JSON true', 'true', 400, /body must be object/),
  post('empty object', '{}', 400, /missing the required property/),
  post('missing name', '{"id":2}', 400, /missing the required property "name"/),
  post('missing id', '{"name":"x"}', 400, /missing the required property "id"/),
  post('unknown property', '{"id":2,"name":"x","colour":"green"}', 400, /unknown property "colour"/),
  post('__proto__ key', '{"id":2,"name":"x","__proto__":{"admin":true}}', 400, /unknown property "__proto__"/),
  post('constructor key', '{"id":2,"name":"x","constructor":{"prototype":{}}}', 400, /unknown property "constructor"/),
  post('prototype key', '{"id":2,"name":"x","prototype":1}', 400, /unknown property "prototype"/),
  post('__proto__ only', '{"__proto__":{"id":2,"name":"x"}}', 400),
  post('duplicate id, different values', '{"id":2,"name":"x","id":3}', 400, /appears twice/),
  post('duplicate name, different values', '{"id":2,"name":"x","name":"y"}', 400, /appears twice/),
  post('name as number', '{"id":2,"name":5}', 400, /body\.name must be string/),
  post('name as array', '{"id":2,"name":["x"]}', 400, /body\.name must be string/),
  post('name as object', '{"id":2,"name":{"x":1}}', 400, /body\.name must be string/),
  post('name as null', '{"id":2,"name":null}', 400, /body\.name must be string/),
  post('name as boolean', '{"id":2,"name":true}', 400, /body\.name must be string/),
  post('name as decimal', '{"id":2,"name":1.5}', 400, /body\.name must be string/),
  post('tag as null', '{"id":2,"name":"x","tag":null}', 400, /body\.tag must be string/),
  post('tag as number', '{"id":2,"name":"x","tag":7}', 400, /body\.tag must be string/),
  post('tag as object with __proto__', '{"id":2,"name":"x","tag":{"__proto__":{"polluted":1}}}', 400, /body\.tag must be string/),
];

const INTEGER = /body\.id must be a JSON integer/;
const numbers: HostileCase[] = [
  post('id 1e400', '{"id":1e400,"name":"x"}', 400, INTEGER),
  post('id -0', '{"id":-0,"name":"x"}', 400, /body\.id must be a JSON integer \(no fraction, exponent, quotes or -0\)/),
  post('id 1.0', '{"id":1.0,"name":"x"}', 400, INTEGER),
  post('id 2.5', '{"id":2.5,"name":"x"}', 400, INTEGER),
  post('id 1e3', '{"id":1e3,"name":"x"}', 400, INTEGER),
  post('id 1E3', '{"id":1E3,"name":"x"}', 400, INTEGER),
  post('id 1e-7', '{"id":1e-7,"name":"x"}', 400, INTEGER),
  post('id 2^63', '{"id":9223372036854775808,"name":"x"}', 400, /from -9223372036854775808 to 9223372036854775807/),
  post('id -2^63-1', '{"id":-9223372036854775809,"name":"x"}', 400, /from -9223372036854775808 to 9223372036854775807/),
  post('id with 400 digits', `{"id":${'9'.repeat(400)},"name":"x"}`, 400, INTEGER),
  post('id 9223372036854775807.0', '{"id":9223372036854775807.0,"name":"x"}', 400, INTEGER),
  post('id as string', '{"id":"2","name":"x"}', 400, INTEGER),
  post('id as big string', '{"id":"9223372036854775807","name":"x"}', 400, INTEGER),
  post('id as boolean', '{"id":true,"name":"x"}', 400, INTEGER),
  post('id as null', '{"id":null,"name":"x"}', 400, INTEGER),
  post('id as array', '{"id":[2],"name":"x"}', 400, INTEGER),
  post('id as object', '{"id":{"value":2},"name":"x"}', 400, INTEGER),
];

const CHARACTERS = /control characters or unpaired surrogates/;
const strings: HostileCase[] = [
  post('name with NUL', '{"id":2,"name":"a\\u0000b"}', 400, CHARACTERS),
  post('name with bell', '{"id":2,"name":"a\\u0007b"}', 400, CHARACTERS),
  post('name with escaped newline', '{"id":2,"name":"a\\nb"}', 400, CHARACTERS),
  post('name with DEL', '{"id":2,"name":"a\\u007fb"}', 400, CHARACTERS),
  post('name with a C1 control (NEL)', '{"id":2,"name":"a\\u0085b"}', 400, CHARACTERS),
  post('name with the last C1 control', '{"id":2,"name":"a\\u009fb"}', 400, CHARACTERS),
  post('tag with the last C0 control', '{"id":2,"name":"x","tag":"a\\u001f"}', 400, CHARACTERS),
  post('name with a lone high surrogate', '{"id":2,"name":"\\ud800"}', 400, CHARACTERS),
  post('name with a lone low surrogate', '{"id":2,"name":"x\\udc00y"}', 400, CHARACTERS),
  post('name with reversed surrogates', '{"id":2,"name":"\\udc00\\ud800"}', 400, CHARACTERS),
  post('tag with NUL', '{"id":2,"name":"x","tag":"\\u0000"}', 400, CHARACTERS),
  post('tag with a lone surrogate', '{"id":2,"name":"x","tag":"\\udfff"}', 400, CHARACTERS),
  post('empty name', '{"id":2,"name":""}', 400, /fewer than 1 characters/),
  post('name of 201 characters', `{"id":2,"name":"${'a'.repeat(201)}"}`, 400, /more than 200 characters/),
  post('name of 201 emoji', `{"id":2,"name":"${'🌵'.repeat(201)}"}`, 400, /more than 200 characters/),
  post('tag of 101 characters', `{"id":2,"name":"x","tag":"${'a'.repeat(101)}"}`, 400, /more than 100 characters/),
];

const contentTypes: HostileCase[] = [
  {
    name: 'text/plain',
    method: 'POST',
    contentType: 'text/plain',
    body: '{"id":2,"name":"x"}',
    status: 415,
    message: /application\/json, not text\/plain/,
  },
  { name: 'form encoded', method: 'POST', contentType: 'application/x-www-form-urlencoded', body: 'id=2&name=x', status: 415 },
  { name: 'multipart', method: 'POST', contentType: 'multipart/form-data; boundary=x', body: '--x\r\n\r\n--x--', status: 415 },
  { name: 'xml', method: 'POST', contentType: 'application/xml', body: '<plant/>', status: 415 },
  { name: 'json look-alike', method: 'POST', contentType: 'application/jsonx', body: '{"id":2,"name":"x"}', status: 415 },
  { name: 'json-patch', method: 'POST', contentType: 'application/json-patch+json', body: '[]', status: 415 },
  { name: 'no content type with a body', method: 'POST', contentType: null, body: '{"id":2,"name":"x"}', status: 415 },
  { name: 'no content type, no body', method: 'POST', contentType: null, status: 400 },
  {
    name: 'body over 16 KiB',
    method: 'POST',
    body: `{"id":2,"name":"x","tag":"${'a'.repeat(16_400)}"}`,
    status: 413,
    message: /larger than 16384 bytes/,
  },
  { name: 'huge body', method: 'POST', body: `[${'1,'.repeat(500_000)}1]`, status: 413 },
  { name: 'text body on DELETE', method: 'DELETE', url: '/plants/1', contentType: 'text/plain', body: 'x', status: 415 },
  { name: 'huge body on DELETE', method: 'DELETE', url: '/plants/1', body: `"${'a'.repeat(20_000)}"`, status: 413 },
  {
    name: 'JSON body that does not parse on DELETE',
    method: 'DELETE',
    url: '/plants/1',
    body: '{"x":',
    status: 400,
    message: /not valid JSON/,
  },
];

const queries: HostileCase[] = [
  list('limit=0'),
  list('limit=1001'),
  list('limit=-1'),
  list('limit=abc'),
  list('limit=1.5'),
  list('limit=1.0'),
  list('limit=1e2'),
  list('limit='),
  list('limit=1&limit=2'),
  list('limit=0x10'),
  list('limit=%2B1'),
  list('limit=%201'),
  list('limit=1%20'),
  list('limit=99999999999999999999'),
  list('limit=%00'),
  list('limit=1;DROP%20TABLE%20plants'),
  list('cursor='),
  list('cursor=***'),
  list('cursor=djE6'),
  list('cursor=eHl6'),
  list(`cursor=${'A'.repeat(65)}`),
  list('cursor=djE6OTIyMzM3MjAzNjg1NDc3NTgwOA'),
  list('cursor=djE6MDE'),
  list('cursor=a&cursor=b', 400, /^querystring\.cursor is given more than once; give it once\.$/),
  list("cursor='%20OR%201=1--"),
];

const paths: HostileCase[] = [
  remove('abc'),
  remove('1e3'),
  remove('0x10'),
  remove('+1'),
  remove('%2B1'),
  remove('%20'),
  remove('%201'),
  remove('1.0'),
  remove('-0'),
  remove('01'),
  remove('9223372036854775808'),
  remove('-9223372036854775809'),
  remove('9'.repeat(1000)),
  remove('1%2F2'),
  remove('%00'),
  remove('1;DROP%20TABLE%20plants'),
  remove("1'%20OR%20'1'='1"),
  remove('%D9%A1'),
  remove('..%2F1'),
  remove('../1', 404),
  remove('', 400),
  { name: 'GET one plant (no such operation)', method: 'GET', url: '/plants/1', status: 405 },
  { name: 'PUT /plants', method: 'PUT', url: '/plants', body: '{}', status: 405 },
  { name: 'PATCH /plants/1', method: 'PATCH', url: '/plants/1', body: '{}', status: 405 },
  { name: 'TRACE /plants', method: 'TRACE', url: '/plants', status: 405 },
  { name: 'unknown path', method: 'GET', url: '/plants/1/leaves', status: 404 },
  { name: 'path traversal', method: 'GET', url: '/%2e%2e/%2e%2e/etc/passwd', status: 404 },
];

export const corpus: HostileCase[] = [...malformedJson, ...wrongShape, ...numbers, ...strings, ...contentTypes, ...queries, ...paths];
