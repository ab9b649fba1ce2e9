// Ink writes only the final frame when CI is set; UI tests need every frame.
delete process.env.CI;
delete process.env.NO_COLOR;
process.env.FORCE_COLOR = process.env.FORCE_COLOR ?? "1";
