-- Pods' host keys (issue 38): the org's third key pair, `host_ca`, signs an OpenSSH host certificate for each pod at
-- its create; the pod serves that key and certificate (the pod image contract), and the service and the CLI refuse
-- any other host. An existing org gets its host_ca at its next need (keys.ts).
alter table compute_keys drop constraint compute_keys_kind_check;
alter table compute_keys add constraint compute_keys_kind_check check (kind in ('backend', 'user_ca', 'host_ca'));

-- What each pod's host proves itself with, both public: the name its host certificate is for (its only principal,
-- `podhost-<create id>`, unique to the create: the pod id is the provider's and unknown until the create answers),
-- and the exact host public key Quad certified (the service's SSH client, ssh2, cannot check a host certificate: it
-- pins this key). Null for a pod made before: SSH to it is refused until it is recreated.
alter table compute_pods add column host_key_alias text;
alter table compute_pods add column host_public_key text;
