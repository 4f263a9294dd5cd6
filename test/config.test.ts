// Configuration from the environment: CORS_ORIGINS (the other settings are checked through the real process in server.test.ts).
import t from 'tap';
import { ConfigError, loadConfig } from '../src/config.js';

t.test('CORS_ORIGINS: none by default; exact origins, comma-separated', async (t) => {
  t.same(loadConfig({}).corsOrigins, []);
  t.same(loadConfig({ CORS_ORIGINS: '' }).corsOrigins, []);
  t.same(loadConfig({ CORS_ORIGINS: 'https://app.example.com' }).corsOrigins, ['https://app.example.com']);
  t.same(loadConfig({ CORS_ORIGINS: ' http://localhost:5173 , https://app.example.com,,http://localhost:5173' }).corsOrigins, [
    'http://localhost:5173',
    'https://app.example.com',
  ]);
});

t.test('CORS_ORIGINS: anything a browser would never send as Origin stops start-up, naming the variable', async (t) => {
  for (const value of ['*', 'app.example.com', 'https://app.example.com/', 'https://app.example.com/path', 'https://App.example.com', 'https://app.example.com:443', 'ftp://files.example.com', 'null', 'https://ok.example.com,nope']) {
    t.throws(() => loadConfig({ CORS_ORIGINS: value }), { constructor: ConfigError, message: /^CORS_ORIGINS must be comma-separated origins/ }, value);
  }
});
