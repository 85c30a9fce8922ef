import type { AgentDefinition } from '@zero/agent/definitions/definition';
import type { ProjectStore } from '../../projects/project-store';

/**
 * Framework hints for an API tester's prompt (ZAP's `SetFramework`): where a framework's routes,
 * handlers and validation live, so a failing request can be traced to its code. The frameworks are
 * chosen from the project's analysis documents (technology identification, the package inventory):
 * a framework is named when one of its package names appears among the documents' strings.
 */
export interface FrameworkHint {
  name: string;
  /** Package names (as inventories spell them) that show the framework is used. */
  packages: readonly string[];
  hint: string;
}

export const FRAMEWORK_HINTS: readonly FrameworkHint[] = [
  { name: 'gin', packages: ['github.com/gin-gonic/gin'], hint: 'Routes: grep for `r.GET(`, `r.POST(`, `router.Group(`; handlers take `*gin.Context`; responses are `c.JSON(`, binding errors come from `c.ShouldBind`/`c.Bind`.' },
  { name: 'echo', packages: ['github.com/labstack/echo', 'github.com/labstack/echo/v4'], hint: 'Routes: `e.GET(`, `e.POST(`, `g := e.Group(`; handlers take `echo.Context`; `c.Bind(` and `echo.NewHTTPError(` shape errors.' },
  { name: 'fiber', packages: ['github.com/gofiber/fiber', 'github.com/gofiber/fiber/v2'], hint: 'Routes: `app.Get(`, `app.Post(`; handlers take `*fiber.Ctx`; `c.BodyParser(` and `fiber.NewError(` shape errors.' },
  { name: 'fastapi', packages: ['fastapi'], hint: 'Routes: grep for `@app.get(`, `@router.post(`, `APIRouter(`; request models are pydantic `BaseModel`s; a 422 lists `detail[].loc`; dependencies come through `Depends(`; `HTTPException(` sets status and detail.' },
  { name: 'flask', packages: ['flask'], hint: 'Routes: `@app.route(`, `@bp.route(`, `Blueprint(`; `abort(` and `@app.errorhandler(` shape errors; request data from `request.get_json()`.' },
  { name: 'django', packages: ['django', 'djangorestframework'], hint: 'Routes in `urls.py` (`path(`, `router.register(`); views in `views.py`, DRF serializers validate (`serializers.py`); settings in `settings.py`.' },
  { name: 'express', packages: ['express'], hint: 'Routes: grep for `app.get(`, `router.post(`, `express.Router(`; middleware order matters (`app.use(`); an error handler has four arguments `(err, req, res, next)`.' },
  { name: 'nestjs', packages: ['@nestjs/core'], hint: 'Routes: `@Controller(`, `@Get(`, `@Post(`; DTOs validated by `class-validator` through `ValidationPipe`; `HttpException` subclasses set the status.' },
  { name: 'fastify', packages: ['fastify'], hint: 'Routes: `fastify.get(`, `fastify.route(`; JSON schemas on routes validate input and output (a 400 names the schema path).' },
  { name: 'koa', packages: ['koa', '@koa/router'], hint: 'Routes: `router.get(`; handlers take `ctx`; `ctx.throw(` and error middleware shape errors.' },
  { name: 'spring', packages: ['org.springframework.boot:spring-boot-starter-web', 'spring-boot-starter-web', 'org.springframework:spring-web'], hint: 'Routes: `@RestController`, `@GetMapping(`, `@PostMapping(`, `@RequestMapping(`; validation with `@Valid`; `@ControllerAdvice`/`@ExceptionHandler` shape errors.' },
  { name: 'rails', packages: ['rails', 'actionpack'], hint: 'Routes in `config/routes.rb`; controllers in `app/controllers/`; strong parameters (`params.require(`) and model validations shape 422s.' },
  { name: 'laravel', packages: ['laravel/framework'], hint: 'Routes in `routes/api.php`; controllers in `app/Http/Controllers/`; Form Requests validate; exceptions rendered in `app/Exceptions/Handler.php`.' },
  { name: 'aspnet', packages: ['Microsoft.AspNetCore.App', 'Microsoft.AspNetCore.Mvc'], hint: 'Routes: `[ApiController]`, `[HttpGet(`, `app.MapGet(`; model validation returns ProblemDetails (`errors` by field).' },
];

/** The analysis documents read for frameworks, in this order. */
export const FRAMEWORK_SCANNERS = ['technology-identification', 'code-packages'] as const;
/** Most strings read from one analysis document. */
const MAX_STRINGS = 50_000;

/** The frameworks whose packages appear among the strings of the given documents. */
export function frameworksIn(documents: readonly unknown[]): FrameworkHint[] {
  const names = new Set<string>();
  for (const document of documents) collect(document, names, 0);
  const lower = new Set([...names].map((name) => name.toLowerCase()));
  return FRAMEWORK_HINTS.filter((framework) => framework.packages.some((pkg) => lower.has(pkg.toLowerCase())) || lower.has(framework.name));
}

/**
 * The frameworks of a project, from its analysis documents. Must not throw: a project without
 * analysis, or one that cannot be read, has none.
 */
export async function projectFrameworks(projects: Pick<ProjectStore, 'getAnalysis'>, projectId: string): Promise<FrameworkHint[]> {
  const documents = await Promise.all(FRAMEWORK_SCANNERS.map((scanner) => projects.getAnalysis(projectId, scanner).catch(() => undefined)));
  return frameworksIn(documents.filter((d) => d !== undefined));
}

/** The prompt section for the frameworks found; says so when none were. */
export function frameworkSection(frameworks: readonly FrameworkHint[]): string {
  if (frameworks.length === 0) {
    return "## Framework hints\nThe project's analysis names no API framework Zero knows; find the routes with grep (route decorators, router calls) before tracing a failure.";
  }
  return `## Framework hints\nThe project's analysis shows ${frameworks.map((f) => f.name).join(', ')}.\n${frameworks.map((f) => `- ${f.name}: ${f.hint}`).join('\n')}`;
}

/** Every string in a document (values and keys: an inventory may key packages by name), and `name@version` split at the last `@`. */
function collect(value: unknown, out: Set<string>, depth: number): void {
  if (depth > 30 || out.size > MAX_STRINGS) return;
  if (typeof value === 'string') {
    out.add(value);
    const at = value.lastIndexOf('@');
    if (at > 0) out.add(value.slice(0, at));
  } else if (Array.isArray(value)) {
    for (const item of value) collect(item, out, depth + 1);
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      out.add(key);
      collect(item, out, depth + 1);
    }
  }
}

/** The tool whose grant makes an agent an API tester: its prompt gets the project's framework hints. */
export const API_TESTER_TOOL = 'run_request';

/**
 * The framework hints section of a run's prompt: for an agent granted `run_request` on a project,
 * undefined for any other. Must not throw (see projectFrameworks).
 */
export async function frameworkHintsFor(projects: Pick<ProjectStore, 'getAnalysis'>, agent: Pick<AgentDefinition, 'tools'>, projectId: string | undefined): Promise<string | undefined> {
  if (!projectId || !agent.tools.includes(API_TESTER_TOOL)) return undefined;
  return frameworkSection(await projectFrameworks(projects, projectId));
}
