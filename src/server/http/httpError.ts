/** An error that maps to one HTTP answer: status plus a JSON body ({detail, …}). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body.detail === "string" ? body.detail : `HTTP ${status}`);
    this.name = "HttpError";
  }

  static detail(status: number, detail: string): HttpError {
    return new HttpError(status, { detail });
  }
}
