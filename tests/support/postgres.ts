import pg from 'pg';

/** Creates the database `name` through the admin connection `adminUrl`: the (open) admin client, to drop it later, and the new database's URL. */
export async function createTestDatabase(adminUrl: string, name: string): Promise<{ admin: pg.Client; url: string }> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { admin, url: url.toString() };
}
