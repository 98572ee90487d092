import { z } from 'zod';

/**
 * A TCP port, 0 to 65535, from a number or a string (environment variables are strings). A new
 * schema each call, so that each field carries its own `.default()` and `.describe()`.
 */
export const port = () => z.coerce.number().int().min(0).max(65535);

/** A positive integer, from a number or a string; a new schema each call, as {@link port}. */
export const positiveInt = () => z.coerce.number().int().positive();
