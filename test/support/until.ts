/** The older name of `eventually`, which now fails the test itself when the condition never holds. */
export { eventually as until } from './wait';
