/** An error that maps to one HTTP answer: status plus a JSON body ({detail, …}). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    const d = body.detail as { message?: unknown } | string | undefined;
    super(
      typeof d === "string" ? d : typeof d?.message === "string" ? d.message : `HTTP ${status}`,
    );
    this.name = "HttpError";
  }

  static detail(status: number, detail: string): HttpError {
    return new HttpError(status, { detail });
  }

  /** The documented structured shape: {detail: {error, message, field}}. */
  static invalid(field: string, message: string, status = 400): HttpError {
    return new HttpError(status, { detail: { error: "validation_error", message, field } });
  }
}
