import { describe, expect, it } from 'vitest';
import { mapFramesToProject, parseStackTrace } from './stack-trace';

describe('parseStackTrace', () => {
  it('reads a Python traceback', () => {
    const trace = 'Traceback (most recent call last):\n  File "/srv/app/api/users.py", line 42, in get_user\n    return db.fetch(id)\n  File "/usr/lib/python3.11/json/decoder.py", line 355, in raw_decode\nValueError: bad';
    expect(parseStackTrace(trace)).toEqual([
      { language: 'python', file: '/srv/app/api/users.py', line: 42, function: 'get_user' },
      { language: 'python', file: '/usr/lib/python3.11/json/decoder.py', line: 355, function: 'raw_decode' },
    ]);
  });

  it('reads a Node stack from a JSON body, with and without function names and file URLs', () => {
    const body = JSON.stringify({ error: 'boom', stack: 'TypeError: x is undefined\n    at getUser (/srv/app/src/routes/users.js:12:7)\n    at /srv/app/src/index.js:3:1\n    at async file:///srv/app/src/db.mjs:8:2\n    at Layer.handle [as handle_request] (/srv/app/node_modules/express/lib/router/layer.js:95:5)' });
    expect(parseStackTrace(body)).toEqual([
      { language: 'node', file: '/srv/app/src/routes/users.js', line: 12, function: 'getUser' },
      { language: 'node', file: '/srv/app/src/index.js', line: 3 },
      { language: 'node', file: '/srv/app/src/db.mjs', line: 8 },
      { language: 'node', file: '/srv/app/node_modules/express/lib/router/layer.js', line: 95, function: 'Layer.handle [as handle_request]' },
    ]);
  });

  it('reads a Go panic and a Java exception', () => {
    const go = 'panic: runtime error: index out of range\n\ngoroutine 1 [running]:\nmain.(*Server).getUser(0xc000010000, 0x3)\n\t/home/ci/app/handlers/users.go:42 +0x1d\nmain.main()\n\t/home/ci/app/main.go:10 +0x25';
    expect(parseStackTrace(go)).toEqual([
      { language: 'go', file: '/home/ci/app/handlers/users.go', line: 42, function: 'main.(*Server).getUser' },
      { language: 'go', file: '/home/ci/app/main.go', line: 10, function: 'main.main' },
    ]);
    const java = 'java.lang.NullPointerException\n\tat com.acme.api.UserController.get(UserController.java:42)\n\tat java.base/java.lang.Thread.run(Thread.java:833)';
    expect(parseStackTrace(java)[0]).toEqual({ language: 'java', file: 'com/acme/api/UserController.java', line: 42, function: 'com.acme.api.UserController.get' });
  });

  it('reads Ruby and PHP frames, and nothing from text without a trace', () => {
    expect(parseStackTrace("app/controllers/users_controller.rb:12:in `show'")).toEqual([{ language: 'ruby', file: 'app/controllers/users_controller.rb', line: 12, function: 'show' }]);
    expect(parseStackTrace('#0 /var/www/src/Api.php(42): App\\Api->get()')).toEqual([{ language: 'php', file: '/var/www/src/Api.php', line: 42 }]);
    expect(parseStackTrace('{"error":"not found","line":"3"}')).toEqual([]);
    expect(parseStackTrace('File "x.py", line 0, in f')).toEqual([]);
  });
});

describe('mapFramesToProject', () => {
  const paths = ['api/users.py', 'tests/api/users.py', 'src/routes/users.js', 'src/main/java/com/acme/api/UserController.java', 'users.js'];

  it('picks the project file sharing the longest tail with the frame, and marks library and unknown frames', () => {
    const frames = parseStackTrace(
      [
        'File "/srv/app/api/users.py", line 42, in get_user',
        '    at getUser (/srv/app/src/routes/users.js:12:7)',
        '\tat com.acme.api.UserController.get(UserController.java:42)',
        'File "/usr/lib/python3.11/json/decoder.py", line 355, in raw_decode',
        'File "/srv/app/gone.py", line 1, in f',
      ].join('\n'),
    );
    expect(mapFramesToProject(frames, paths).map((f) => f.projectPath ?? f.outside)).toEqual([
      'api/users.py',
      'src/routes/users.js',
      'src/main/java/com/acme/api/UserController.java',
      'library',
      'not in project',
    ]);
  });
});
